//! Every corpus kernel lowers; spans of accesses and barriers point at the right text.

use autosync::front;
use autosync_devtools::manifest;
use autosync_oracle::ir::*;
use autosync_oracle::tree::for_each_stmt;
use std::path::Path;

fn corpus() -> &'static Path {
    Path::new("corpus")
}

#[test]
fn every_manifest_kernel_lowers() {
    let m = manifest::load(&corpus().join("manifest.yaml")).expect("manifest parses");
    assert!(m.kernels.len() >= 40, "corpus has {} kernels", m.kernels.len());
    for e in &m.kernels {
        let unit =
            front::load(&e.file(corpus()), &e.front_options()).unwrap_or_else(|err| panic!("{}: {:?}", e.path, err));
        assert_eq!(unit.kernels.len(), 1, "{}: kernel {}", e.path, e.kernel);
        // A template kernel is named with its arguments (`reduce<float, 128>`).
        assert_eq!(front::base_name(&unit.kernels[0].name), e.kernel);
    }
}

#[test]
fn every_corpus_file_is_in_the_manifest() {
    let m = manifest::load_all(&corpus().join("manifest.yaml")).expect("manifest parses");
    let listed: std::collections::BTreeSet<String> = m.kernels.iter().map(|e| e.path.clone()).collect();
    let mut stack = vec![corpus().to_path_buf()];
    while let Some(d) = stack.pop() {
        for ent in std::fs::read_dir(&d).unwrap() {
            let p = ent.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "cu") {
                let rel = p.strip_prefix(corpus()).unwrap().to_string_lossy().replace('\\', "/");
                assert!(listed.contains(&rel), "{rel} is not in corpus/manifest.yaml");
            }
        }
    }
}

fn span_text(unit: &front::SourceUnit, s: Span) -> &str {
    let t = &unit.texts[s.file.0 as usize];
    &t[s.lo as usize..(s.hi as usize).min(t.len())]
}

#[test]
fn access_and_barrier_spans_cover_their_source() {
    let m = manifest::load(&corpus().join("manifest.yaml")).expect("manifest parses");
    let mut accesses = 0;
    let mut barriers = 0;
    for e in &m.kernels {
        let unit = front::load(&e.file(corpus()), &e.front_options()).unwrap();
        let k = &unit.kernels[0];
        // Names through which an array can be reached: the array itself and pointer variables
        // (an object's pointer member `row.data_` is written `data_` in its methods).
        let pointer_names: Vec<&str> = k
            .vars
            .iter()
            .filter(|v| v.kind == VarKind::Temp)
            .map(|v| v.name.rsplit('.').next().unwrap_or(&v.name))
            .collect();
        for_each_stmt(&k.body, &mut |s: &Stmt| match &s.kind {
            StmtKind::Basic(ops) => {
                for op in ops {
                    let acc = match op {
                        Op::Read(_, a) | Op::Write(a, _) | Op::Atomic(_, a, _) => a,
                        // Async-pipeline ops name their operands through asm operands.
                        _ => continue,
                    };
                    accesses += 1;
                    let text = span_text(&unit, acc.span);
                    let name = &k.array(acc.array).name;
                    // An access inside a macro's expansion is located at the macro's use.
                    let ident: String = text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                    let macro_use =
                        !ident.is_empty() && unit.texts.iter().any(|t| t.contains(&format!("#define {ident}")));
                    // An access inside library code (CUB, cuRAND) is located at the user's call.
                    let library_call = e.needs_toolkit() && text.contains('(');
                    // A member array (`fa.x`, a WMMA fragment's registers) may be located at its
                    // object, which a library call reads or writes whole.
                    let object = name.split('.').next().unwrap_or(name);
                    // An element of an array of pointers (`p.plane[1]`) is reached through the
                    // array (`p.plane[channel][i]`).
                    let table = name.split('[').next().unwrap_or(name);
                    assert!(
                        text.contains(name.as_str())
                            || text.contains(table)
                            || text == object
                            || pointer_names.iter().any(|p| text.contains(p))
                            || macro_use
                            || library_call,
                        "{}: access span `{text}` does not name array `{name}`",
                        k.loc(acc.span)
                    );
                }
            }
            StmtKind::Barrier(..) => {
                barriers += 1;
                let text = span_text(&unit, s.span);
                let ok = [
                    "__syncthreads",
                    "bar.",
                    "barrier.",
                    "sync(",
                    "arrive",
                    "__syncwarp",
                    "Barrier",
                ]
                .iter()
                .any(|w| text.contains(w));
                // A barrier issued inside a called helper is reported at the kernel's call.
                let call = text.trim_end_matches(';').trim_end().ends_with(')');
                assert!(
                    ok || call,
                    "{}: barrier span `{text}` does not cover a barrier call",
                    k.loc(s.span)
                );
            }
            _ => {}
        });
    }
    assert!(
        accesses > 200 && barriers > 50,
        "{accesses} accesses, {barriers} barriers"
    );
}
