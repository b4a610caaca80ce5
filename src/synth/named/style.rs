//! How inserted named barriers are written: raw asm, CUTLASS `NamedBarrier`, or the kernel's own
//! helper function or macro — chosen per kind (sync, arrive), since a kernel may wrap only one.

use super::{NamedKind, NamedSettings, NamedStyle};
use autosync_oracle::ir::{BarrierHelper, BarrierSyntax, HelperKind, Kernel, StmtKind};
use autosync_oracle::tree::for_each_stmt;

/// How one kind of named barrier is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Writer {
    /// `asm volatile("bar.sync %0, %1;" ...)`.
    Asm,
    /// `NamedBarrier::sync(N, ID)`.
    Cutlass,
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
        let id = id_text.map_or_else(|| id.to_string(), str::to_string);
        match self {
            Writer::Asm => {
                format!("asm volatile(\"bar.{op} %0, %1;\" :: \"r\"({id}), \"r\"({count}) : \"memory\");")
            }
            Writer::Cutlass => format!("NamedBarrier::{op}({count}, {id});"),
            Writer::Helper(h) => {
                let mut args = vec![String::new(); h.arity];
                args[h.id_arg] = id;
                args[h.count_arg] = count.to_string();
                format!("{}({});", h.name, args.join(", "))
            }
        }
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
        Some(NamedStyle::Cutlass) => Emission::uniform(Writer::Cutlass),
        Some(NamedStyle::Macro) => per_kind(true),
        None if uses_cutlass(k) => Emission::uniform(Writer::Cutlass),
        None => per_kind(false),
    }
}
