//! How inserted named barriers are written: raw asm, CUTLASS `NamedBarrier`, or the kernel's own
//! helper function or macro — chosen per kind (sync, arrive), since a kernel may wrap only one.

use super::settings::{NamedKind, NamedSettings, NamedStyle};
use autosync_oracle::ir::{BarrierHelper, BarrierSyntax, HelperKind, Kernel, StmtKind};
use autosync_oracle::tree::for_each_stmt;

/// The hardware IDs CUTLASS's `cutlass::arch::NamedBarrier` leaves to others (it adds this to
/// its ID argument).
pub const CUTLASS_RESERVED: u32 = 8;

/// How one kind of named barrier is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `asm volatile("bar.sync %0, %1;" ...)`.
    Asm,
    /// `NamedBarrier::sync(N, ID - offset)`: CUTLASS's own adds 8 to the ID it is given (a
    /// file's own NamedBarrier-like helper may add nothing).
    Cutlass {
        /// What the NamedBarrier adds to its ID argument.
        offset: u32,
    },
    /// `helper(ID, N)` with the arguments in the helper's order.
    Helper(BarrierHelper),
}

impl Writer {
    /// The statement for `kind`, with the ID written as `id_text` instead of the constant when given.
    pub fn statement(&self, kind: NamedKind, id_text: Option<&str>) -> String {
        let (op, id, count) = match kind {
            NamedKind::SyncThreads => return "__syncthreads();".into(),
            NamedKind::Sync { id, count } => ("sync", id, count),
            NamedKind::Arrive { id, count } => ("arrive", id, count),
        };
        // A hardware ID below the NamedBarrier's offset has no NamedBarrier spelling.
        if let Writer::Cutlass { offset } = *self {
            return match id_text {
                Some(t) if offset > 0 => format!("NamedBarrier::{op}({count}, ({t}) - {offset});"),
                Some(t) => format!("NamedBarrier::{op}({count}, {t});"),
                None if id >= offset => format!("NamedBarrier::{op}({count}, {});", id - offset),
                None => Writer::Asm.statement(kind, None),
            };
        }
        let id = id_text.map_or_else(|| id.to_string(), str::to_string);
        match self {
            Writer::Asm => {
                format!("asm volatile(\"bar.{op} %0, %1;\" :: \"r\"({id}), \"r\"({count}) : \"memory\");")
            }
            Writer::Cutlass { .. } => unreachable!("written above"),
            Writer::Helper(h) => {
                let mut args = vec![String::new(); h.arity];
                args[h.id_arg] = id;
                args[h.count_arg] = count.to_string();
                format!("{}({});", h.name, args.join(", "))
            }
        }
    }
}

impl NamedKind {
    /// The statement text in the given style (`Macro` needs the kernel's helpers: see
    /// [`NamedPlaced::text_in`]; here it is written as asm).
    pub fn text(&self, style: NamedStyle) -> String {
        self.text_with(style, None)
    }

    /// The statement text, with the ID written as `id_text` instead of the constant when given.
    pub fn text_with(&self, style: NamedStyle, id_text: Option<&str>) -> String {
        let w = match style {
            NamedStyle::Cutlass => Writer::Cutlass { offset: 0 },
            NamedStyle::Asm | NamedStyle::Macro => Writer::Asm,
        };
        w.statement(*self, id_text)
    }
}

/// The writers for one kernel, and the notes to show when the requested style could not be
/// followed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Emission {
    /// How `bar.sync` is written.
    pub sync: Writer,
    /// How `bar.arrive` is written.
    pub arrive: Writer,
    /// Kinds for which `--named-style macro` was asked but the file has no helper (written in asm).
    pub missing: Vec<HelperKind>,
}

impl Emission {
    /// The same writer for both kinds.
    pub fn uniform(w: Writer) -> Emission {
        Emission {
            sync: w.clone(),
            arrive: w,
            missing: vec![],
        }
    }

    /// The statement for `kind`.
    pub fn statement(&self, kind: NamedKind, id_text: Option<&str>) -> String {
        match kind {
            NamedKind::Arrive { .. } => self.arrive.statement(kind, id_text),
            _ => self.sync.statement(kind, id_text),
        }
    }

    /// The note for `--named-style macro` on a kernel without a helper for a kind it inserts,
    /// if any (`kinds` are the kinds actually inserted).
    pub fn fallback_note(&self, kinds: &[HelperKind]) -> Option<String> {
        let missing: Vec<&str> = self
            .missing
            .iter()
            .filter(|k| kinds.contains(k))
            .map(|k| match k {
                HelperKind::Sync => "bar.sync",
                HelperKind::Arrive => "bar.arrive",
            })
            .collect();
        if missing.is_empty() {
            return None;
        }
        Some(format!(
            "--named-style macro: the file defines no helper for {} (a __device__ function or function-like macro whose body is one such asm statement taking the ID and the thread count as parameters); wrote inline asm instead",
            missing.join(" or ")
        ))
    }
}

/// The helper to write `kind` with: one the kernel calls, else the first one defined.
fn helper_for(helpers: &[BarrierHelper], kind: HelperKind) -> Option<&BarrierHelper> {
    let of_kind = || helpers.iter().filter(move |h| h.kind == kind);
    of_kind().find(|h| h.used).or_else(|| of_kind().next())
}

/// Whether the file brings CUTLASS's `NamedBarrier` into scope unqualified (`using
/// cutlass::arch::NamedBarrier;`), so inserted barriers can be written with it even when the
/// kernel has no NamedBarrier call left.
pub fn file_brings_named_barrier(text: &str) -> bool {
    text.lines().any(|l| {
        let l: String = l.split_whitespace().collect::<Vec<_>>().join(" ");
        l.starts_with("using cutlass::arch::NamedBarrier;") || l.starts_with("using ::cutlass::arch::NamedBarrier;")
    })
}

/// Whether the file uses CUTLASS's own barrier header (whose NamedBarrier adds
/// [`CUTLASS_RESERVED`] to its IDs), not a NamedBarrier-like helper of its own.
pub fn file_uses_real_cutlass(text: &str) -> bool {
    text.contains("cutlass/arch/barrier.h") || text.contains("cutlass::arch::NamedBarrier")
}

/// Whether the kernel already writes CUTLASS `NamedBarrier` calls.
pub fn uses_cutlass(k: &Kernel) -> bool {
    let mut cutlass = false;
    for_each_stmt(&k.body, &mut |st| {
        cutlass |= matches!(st.kind, StmtKind::Barrier(_, BarrierSyntax::Cutlass));
    });
    cutlass
}

/// How to write `k`'s inserted barriers. With no style set: CUTLASS if the kernel uses it, else
/// per kind the kernel's own helper when the file has one, else asm. `Macro` uses the helpers
/// and falls back to asm (recorded in `missing`) for a kind without one.
pub fn emission_for(k: &Kernel, helpers: &[BarrierHelper], s: &NamedSettings) -> Emission {
    let per_kind = |strict: bool| {
        let mut missing = vec![];
        let mut pick = |kind| match helper_for(helpers, kind) {
            Some(h) => Writer::Helper(h.clone()),
            None => {
                if strict {
                    missing.push(kind);
                }
                Writer::Asm
            }
        };
        let (sync, arrive) = (pick(HelperKind::Sync), pick(HelperKind::Arrive));
        Emission { sync, arrive, missing }
    };
    match s.style {
        Some(NamedStyle::Asm) => Emission::uniform(Writer::Asm),
        Some(NamedStyle::Cutlass) => Emission::uniform(Writer::Cutlass {
            offset: s.cutlass_offset,
        }),
        Some(NamedStyle::Macro) => per_kind(true),
        None if uses_cutlass(k) => Emission::uniform(Writer::Cutlass {
            offset: s.cutlass_offset,
        }),
        None => per_kind(false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(path: &str) -> Kernel {
        let opts = crate::front::FrontOptions::default();
        crate::front::load(std::path::Path::new(path), &opts)
            .unwrap()
            .kernels
            .remove(0)
    }

    fn helper(name: &str, kind: HelperKind, id_arg: usize, used: bool) -> BarrierHelper {
        BarrierHelper {
            name: name.into(),
            kind,
            arity: 2,
            id_arg,
            count_arg: 1 - id_arg,
            is_macro: false,
            used,
        }
    }

    fn settings(style: Option<NamedStyle>) -> NamedSettings {
        NamedSettings {
            style,
            ..Default::default()
        }
    }

    const SYNC: NamedKind = NamedKind::Sync { id: 2, count: 64 };
    const ARRIVE: NamedKind = NamedKind::Arrive { id: 2, count: 64 };

    #[test]
    fn helpers_write_their_arguments_in_their_own_order() {
        let w = Writer::Helper(helper("bar_wait", HelperKind::Sync, 1, true));
        assert_eq!(w.statement(SYNC, None), "bar_wait(64, 2);");
        assert_eq!(w.statement(SYNC, Some("1 + k % 2")), "bar_wait(64, 1 + k % 2);");
        let w = Writer::Helper(helper("named_sync", HelperKind::Sync, 0, true));
        assert_eq!(w.statement(SYNC, Some("1 + k % 2")), "named_sync(1 + k % 2, 64);");
        assert_eq!(w.statement(NamedKind::SyncThreads, None), "__syncthreads();");
    }

    #[test]
    fn default_style_is_chosen_per_kind() {
        let k = load("corpus/named/unsynced/single_shot.cu");
        let only_sync = [helper("s", HelperKind::Sync, 0, true)];
        let e = emission_for(&k, &only_sync, &settings(None));
        assert_eq!(e.statement(SYNC, None), "s(2, 64);");
        assert!(e
            .statement(ARRIVE, None)
            .starts_with("asm volatile(\"bar.arrive %0, %1;\""));
        assert!(e.missing.is_empty());
        // No helper at all: asm, silently (nothing was asked for).
        assert_eq!(emission_for(&k, &[], &settings(None)), Emission::uniform(Writer::Asm));
        // A helper the kernel calls wins over one it does not.
        let two = [
            helper("unused", HelperKind::Arrive, 0, false),
            helper("called", HelperKind::Arrive, 0, true),
        ];
        assert_eq!(
            emission_for(&k, &two, &settings(None)).statement(ARRIVE, None),
            "called(2, 64);"
        );
        // An explicit style overrides the helpers; CUTLASS in the kernel does too.
        assert_eq!(
            emission_for(&k, &two, &settings(Some(NamedStyle::Asm))),
            Emission::uniform(Writer::Asm)
        );
        let cutlass = load("corpus/named/cutlass_style.cu");
        assert_eq!(
            emission_for(&cutlass, &two, &settings(None)),
            Emission::uniform(Writer::Cutlass { offset: 0 })
        );
    }

    #[test]
    fn macro_style_without_a_helper_falls_back_to_asm_with_a_note() {
        let k = load("corpus/named/unsynced/single_shot.cu");
        let e = emission_for(&k, &[], &settings(Some(NamedStyle::Macro)));
        assert_eq!(e.sync, Writer::Asm);
        assert_eq!(e.arrive, Writer::Asm);
        assert_eq!(e.missing, vec![HelperKind::Sync, HelperKind::Arrive]);
        let note = e.fallback_note(&[HelperKind::Arrive]).unwrap();
        assert!(
            note.starts_with("--named-style macro: the file defines no helper for bar.arrive ("),
            "{note}"
        );
        assert!(note.ends_with("wrote inline asm instead"), "{note}");
        // Only the kinds actually inserted are mentioned; nothing inserted, no note.
        assert!(e.fallback_note(&[]).is_none());
        let only_sync = [helper("s", HelperKind::Sync, 0, false)];
        let e = emission_for(&k, &only_sync, &settings(Some(NamedStyle::Macro)));
        assert_eq!(e.missing, vec![HelperKind::Arrive]);
        assert!(e.fallback_note(&[HelperKind::Sync]).is_none());
        assert!(e.fallback_note(&[HelperKind::Sync, HelperKind::Arrive]).is_some());
    }
}
