//! What named-barrier synthesis is asked for and what it inserts: the settings (allowed IDs,
//! emission style, kind costs) and the kinds of inserted statements.

use autosync_oracle::ir::{Barrier, Expr};
use std::collections::BTreeSet;

/// How inserted named barriers are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum NamedStyle {
    /// `asm volatile("bar.sync %0, %1;" :: "r"(ID), "r"(N) : "memory");`
    Asm,
    /// CUTLASS-style `NamedBarrier::sync(N, ID);`
    Cutlass,
    /// The file's own barrier helper function or macro, e.g. `named_sync(ID, N);` (asm, with a
    /// note, for a kind the file has no helper for).
    Macro,
}

/// Options of named-barrier synthesis.
#[derive(Clone, Debug)]
pub struct NamedSettings {
    /// Barrier IDs the tool may use (default 1–15).
    pub allowed_ids: Vec<u32>,
    /// Emission style; `None` follows the kernel (CUTLASS if it already uses `NamedBarrier`, else
    /// its own barrier helpers, else asm).
    pub style: Option<NamedStyle>,
    /// Cost of an arrive relative to a sync at the same place.
    pub arrive_factor: f64,
    /// Lower bound of the cost of a sub-block sync relative to a block-wide one.
    pub min_sync_factor: f64,
    /// What the file's `NamedBarrier` adds to its ID argument (CUTLASS's: 8).
    pub cutlass_offset: u32,
}

impl Default for NamedSettings {
    fn default() -> Self {
        NamedSettings {
            allowed_ids: (1..=15).collect(),
            style: None,
            arrive_factor: 0.25,
            min_sync_factor: 0.25,
            cutlass_offset: 0,
        }
    }
}

/// Parses an ID set such as `0-6` or `0-3,8,10-11` (IDs 0..=15).
pub fn parse_id_set(spec: &str) -> Result<Vec<u32>, String> {
    let mut out = BTreeSet::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let parse = |s: &str| {
            s.parse::<u32>()
                .ok()
                .filter(|&x| x <= 15)
                .ok_or_else(|| format!("`{s}` is not a barrier ID (0-15)"))
        };
        let (lo, hi) = (parse(lo)?, parse(hi)?);
        if lo > hi {
            return Err(format!("empty ID range `{part}`"));
        }
        out.extend(lo..=hi);
    }
    Ok(out.into_iter().collect())
}

impl NamedSettings {
    /// The default allowed set minus the reserved IDs.
    pub fn with_reserved(reserved: &[u32]) -> NamedSettings {
        NamedSettings {
            allowed_ids: (1..=15).filter(|i| !reserved.contains(i)).collect(),
            ..Default::default()
        }
    }
}

/// What an inserted statement does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NamedKind {
    /// `__syncthreads()` (a block-uniform position executed by every warp).
    SyncThreads,
    /// `bar.sync id, count`.
    Sync {
        /// Barrier ID.
        id: u32,
        /// Participating threads.
        count: u32,
    },
    /// `bar.arrive id, count`.
    Arrive {
        /// Barrier ID.
        id: u32,
        /// Participating threads.
        count: u32,
    },
}

impl NamedKind {
    /// The IR barrier.
    pub fn barrier(&self) -> Barrier {
        self.barrier_with(None)
    }

    /// The IR barrier, with its ID computed by `id` instead of the constant when given.
    pub fn barrier_with(&self, id_expr: Option<Expr>) -> Barrier {
        let c = |v: u32| Expr::int(v as i64);
        match *self {
            NamedKind::SyncThreads => Barrier::Block,
            NamedKind::Sync { id, count } => Barrier::NamedSync {
                id: id_expr.unwrap_or_else(|| c(id)),
                count: Some(c(count)),
            },
            NamedKind::Arrive { id, count } => Barrier::NamedArrive {
                id: id_expr.unwrap_or_else(|| c(id)),
                count: c(count),
            },
        }
    }

    pub fn rank(&self) -> u8 {
        match self {
            NamedKind::Arrive { .. } => 0,
            NamedKind::Sync { .. } => 1,
            NamedKind::SyncThreads => 2,
        }
    }
}
