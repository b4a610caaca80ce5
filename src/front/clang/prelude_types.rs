//! The type names a precompiled prelude declares. The prelude's declarations stay out of every
//! later dump, so a type spelled with one of its typedefs (`const int32_t *`, `size_t`,
//! `cudaStream_t`) could not be resolved from the file's own dump. Clang is asked once per
//! prelude for them: the empty translation unit the prelude was built from is dumped, and every
//! namespace-scope `typedef`/`using` alias is kept with the type Clang says it stands for
//! (desugared at the top level), and every enum with the integer type it is laid out as and
//! its enumerators' values (`enum cudaRoundMode`, `cudaRoundNearest`). The table is cached
//! beside the precompiled header.

use super::shim::fnv;
pub use crate::front::ast::PreludeTypes;
use crate::front::ast::{self, Ast, NodeKind};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};

/// The aliases of the prelude precompiled into `pch` (built with `flags`), from the table
/// beside it or, the first time, from Clang. Empty when Clang cannot be asked: the types then
/// stay unknown, as without the table.
pub fn of(clang: &Path, flags: &[String], pch: &Path) -> PreludeTypes {
    static MEM: OnceLock<Mutex<HashMap<PathBuf, PreludeTypes>>> = OnceLock::new();
    // One table is worked out at a time: files read in parallel would otherwise each dump the
    // whole prelude at once.
    static BUILD: Mutex<()> = Mutex::new(());
    let mem = MEM.get_or_init(Default::default);
    let known = || mem.lock().unwrap_or_else(|e| e.into_inner()).get(pch).cloned();
    if let Some(t) = known() {
        return t;
    }
    let _building = BUILD.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(t) = known() {
        return t;
    }
    let file = pch.with_extension("types");
    let table = read_table(&file).unwrap_or_else(|| {
        let t = ask_clang(clang, flags).unwrap_or_default();
        if !t.is_empty() {
            write_table(&file, &t);
        }
        t
    });
    let table = Arc::new(table);
    mem.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(pch.to_path_buf(), table.clone());
    table
}

/// Forgets the table of a prelude that is being built again.
pub fn forget(pch: &Path) {
    let _ = std::fs::remove_file(pch.with_extension("types"));
}

/// Dumps the empty translation unit (the prelude alone) and collects its aliases.
fn ask_clang(clang: &Path, flags: &[String]) -> Option<HashMap<String, String>> {
    let mut child = Command::new(clang)
        .args(flags)
        .args(["-fsyntax-only", "-w", "-Xclang", "-ast-dump=json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    if let Some(mut i) = child.stdin.take() {
        let _ = i.write_all(b"\n");
    }
    let stdout = child.stdout.take()?;
    let ast = ast::read::read(stdout, &|_| true);
    let status = child.wait().ok()?;
    let ast = ast.ok().filter(|_| status.success())?;
    let mut table = aliases(&ast);
    table.extend(enums(&ast));
    Some(table)
}

/// The key under which the table keeps the value of the enumerator `name` (not a C++ name, so
/// it cannot meet an alias).
pub fn enumerator_key(name: &str) -> String {
    format!("enumerator {name}")
}

/// Every named enum declared at namespace scope, as the integer type it is laid out as (its
/// fixed type, else `int`), and the value of each enumerator of any enum by its simple name.
/// A name two enumerators with different values share, or one whose value Clang did not fold,
/// is left out: which value a reference means is not known.
pub fn enums(ast: &Ast) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let mut values: HashMap<String, Option<i64>> = HashMap::new();
    for (&id, d) in &ast.decls {
        if d.kind != NodeKind::EnumDecl {
            continue;
        }
        let Some(n) = ast.decl_node(id) else { continue };
        let fixed = ast.node(n).attrs.fixed_type.map(|t| ast.type_str(t).to_string());
        // An unnamed enum names no type, but its enumerators still share names with others.
        let named = !d.qual.is_empty() && !d.qual.contains("(anonymous") && !d.qual.contains("(unnamed");
        if named && namespace_scope(ast, d.parent) {
            out.entry(d.qual.clone())
                .or_insert_with(|| fixed.unwrap_or_else(|| "int".into()));
        }
        let mut next = Some(0i64);
        for c in ast.children_of_kind(n, NodeKind::EnumConstantDecl) {
            let v = match ast.children(c).find(|&x| !ast.is_attr(x)) {
                Some(init) => folded_value(ast, init),
                None => next,
            };
            let name = ast.name(c).to_string();
            match values.get(&name) {
                Some(old) if *old != v => {
                    values.insert(name, None);
                }
                Some(_) => {}
                None => {
                    values.insert(name, v);
                }
            }
            next = v.map(|v| v.wrapping_add(1));
        }
    }
    for (name, v) in values {
        if let Some(v) = v {
            out.insert(enumerator_key(&name), v.to_string());
        }
    }
    out
}

/// Clang's folded value of an enumerator's initializer (`ConstantExpr`'s `value`, under
/// implicit casts).
fn folded_value(ast: &Ast, mut n: crate::front::ast::NodeId) -> Option<i64> {
    while matches!(ast.kind(n), NodeKind::ImplicitCastExpr | NodeKind::ParenExpr) {
        n = ast.children(n).next()?;
    }
    let v = ast.value(n)?;
    v.parse::<i64>()
        .ok()
        .or_else(|| v.parse::<u64>().ok().map(|u| u as i64))
}

fn namespace_scope(ast: &Ast, parent: Option<u64>) -> bool {
    match parent {
        None => true,
        Some(p) => ast
            .decls
            .get(&p)
            .is_some_and(|d| d.kind == NodeKind::NamespaceDecl || d.kind == NodeKind::LinkageSpecDecl),
    }
}

/// Every alias declared at namespace scope, by qualified name.
pub fn aliases(ast: &Ast) -> HashMap<String, String> {
    let at_namespace_scope = |parent: Option<u64>| namespace_scope(ast, parent);
    let mut out = HashMap::new();
    for d in ast.decls.values() {
        if !matches!(d.kind, NodeKind::TypedefDecl | NodeKind::TypeAliasDecl) || !at_namespace_scope(d.parent) {
            continue;
        }
        let Some(t) = d.ty else { continue };
        let ty = ast.type_str(t);
        // A dependent or unnamed target says nothing usable.
        if d.qual.is_empty() || ty.contains("(unnamed") || ty.contains("(anonymous") {
            continue;
        }
        out.entry(d.qual.clone()).or_insert_with(|| ty.to_string());
    }
    out
}

fn read_table(file: &Path) -> Option<HashMap<String, String>> {
    let text = std::fs::read_to_string(file).ok()?;
    let body = text.strip_prefix("autosync prelude types 2\n")?;
    Some(
        body.lines()
            .filter_map(|l| l.split_once('\t'))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    )
}

/// Writes the table through a temporary file, so a concurrent reader sees all of it or none.
fn write_table(file: &Path, table: &HashMap<String, String>) {
    let mut entries: Vec<_> = table
        .iter()
        .filter(|(k, v)| !k.contains(['\t', '\n']) && !v.contains('\n'))
        .collect();
    entries.sort();
    let mut text = String::from("autosync prelude types 2\n");
    for (k, v) in entries {
        text.push_str(&format!("{k}\t{v}\n"));
    }
    let tmp = file.with_extension(format!("types.{}.{:x}.tmp", std::process::id(), fnv(text.as_bytes())));
    if std::fs::write(&tmp, &text).is_ok() && std::fs::rename(&tmp, file).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aliases_at_namespace_scope_are_kept_with_their_desugared_type() {
        let dump = br#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[
          {"id":"0x2","kind":"TypedefDecl","name":"int32_t","type":{"qualType":"__int32_t","desugaredQualType":"int"}},
          {"id":"0x3","kind":"NamespaceDecl","name":"std","inner":[
            {"id":"0x4","kind":"TypeAliasDecl","name":"size_t","type":{"qualType":"unsigned long"}}]},
          {"id":"0x5","kind":"CXXRecordDecl","name":"S","tagUsed":"struct","completeDefinition":true,"inner":[
            {"id":"0x6","kind":"TypedefDecl","name":"inner_t","type":{"qualType":"short"}}]}]}"#;
        let ast = ast::read::read_slice(dump, &|_| true).unwrap();
        let t = aliases(&ast);
        assert_eq!(t.get("int32_t").map(String::as_str), Some("int"));
        assert_eq!(t.get("std::size_t").map(String::as_str), Some("unsigned long"));
        assert!(!t.contains_key("S::inner_t"), "{t:?}");
    }

    #[test]
    fn enums_are_kept_with_their_layout_and_their_enumerators_values() {
        let dump = br#"{"id":"0x1","kind":"TranslationUnitDecl","inner":[
          {"id":"0x2","kind":"EnumDecl","name":"cudaRoundMode","inner":[
            {"id":"0x3","kind":"EnumConstantDecl","name":"cudaRoundNearest","type":{"qualType":"cudaRoundMode"}},
            {"id":"0x4","kind":"EnumConstantDecl","name":"cudaRoundZero","type":{"qualType":"cudaRoundMode"}},
            {"id":"0x5","kind":"EnumConstantDecl","name":"cudaRoundPosInf","type":{"qualType":"cudaRoundMode"},"inner":[
              {"id":"0x6","kind":"ConstantExpr","type":{"qualType":"int"},"value":"7","inner":[
                {"id":"0x7","kind":"IntegerLiteral","type":{"qualType":"int"},"value":"7"}]}]},
            {"id":"0x8","kind":"EnumConstantDecl","name":"cudaRoundMinInf","type":{"qualType":"cudaRoundMode"}}]},
          {"id":"0x9","kind":"EnumDecl","name":"Other","inner":[
            {"id":"0xa","kind":"EnumConstantDecl","name":"cudaRoundZero","type":{"qualType":"Other"},"inner":[
              {"id":"0xb","kind":"ConstantExpr","type":{"qualType":"int"},"value":"5","inner":[
                {"id":"0xc","kind":"IntegerLiteral","type":{"qualType":"int"},"value":"5"}]}]}]}]}"#;
        let ast = ast::read::read_slice(dump, &|_| true).unwrap();
        let t = enums(&ast);
        assert_eq!(t.get("cudaRoundMode").map(String::as_str), Some("int"));
        let value = |n: &str| t.get(&enumerator_key(n)).cloned();
        assert_eq!(value("cudaRoundNearest").as_deref(), Some("0"));
        assert_eq!(value("cudaRoundPosInf").as_deref(), Some("7"));
        assert_eq!(value("cudaRoundMinInf").as_deref(), Some("8"));
        // Two enumerators named alike with different values: which one is meant is not known.
        assert_eq!(value("cudaRoundZero"), None);
    }

    #[test]
    fn the_table_survives_a_round_trip_through_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("p.types");
        let table: HashMap<String, String> = [("int32_t", "int"), ("std::size_t", "unsigned long")]
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        write_table(&file, &table);
        assert_eq!(read_table(&file), Some(table));
    }
}
