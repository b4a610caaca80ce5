//! The corpus manifest (`corpus/manifest.yaml`): launch configs and expected outcomes of every
//! corpus kernel. Read by the corpus tests and the benchmarks.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The whole manifest.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// One entry per kernel.
    pub kernels: Vec<Entry>,
}

/// One corpus kernel.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// Path relative to `corpus/`.
    pub path: String,
    /// The `__global__` function.
    pub kernel: String,
    /// micro | sdk | racy | named | regress.
    pub group: String,
    /// Concrete scalar parameters.
    #[serde(default)]
    pub params: BTreeMap<String, i64>,
    /// `-D` macro definitions.
    #[serde(default)]
    pub defines: BTreeMap<String, serde_yaml_ng::Value>,
    /// `--define` values of template parameters (for a kernel template the file never
    /// instantiates).
    #[serde(default)]
    pub template_values: BTreeMap<String, serde_yaml_ng::Value>,
    /// `-I` directories, relative to `corpus/`.
    #[serde(default)]
    pub include_dirs: Vec<String>,
    /// What the kernel exercises.
    #[serde(default)]
    pub notes: String,
    /// Barrier statements in the file as written.
    #[serde(default)]
    pub original_barriers: Option<u32>,
    /// Expected `check` outcome.
    pub check: CheckExpect,
    /// Expected `fix` outcome.
    #[serde(default)]
    pub fix: Option<FixExpect>,
    /// `required`: the kernel includes the real toolkit's libraries (CUB, cooperative groups,
    /// WMMA, cuRAND, CUTLASS) and is read with the test toolkit only; `shim`: it is read with
    /// the built-in shim only (the notes say why the toolkit's reading differs).
    #[serde(default)]
    pub toolkit: Option<Toolkit>,
    /// The GPU architecture to read it for (`sm_90`; default sm_80).
    #[serde(default)]
    pub arch: Option<String>,
    /// The named-barrier style `fix` writes (`cutlass`, `asm`, `macro`).
    #[serde(default)]
    pub named_style: Option<String>,
    /// Why autosync does not give this kernel its verdict yet (what is missing). Pending
    /// kernels are left out of the corpus tests, and one test checks that each still disagrees
    /// with the manifest, so a kernel that starts working loses the mark.
    #[serde(default)]
    pub pending: Option<String>,
}

/// Whether a kernel needs the real toolkit.
#[derive(Debug, Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Toolkit {
    /// Read with the real toolkit only.
    Required,
    /// Read with the built-in shim only.
    Shim,
}

/// Expected verification outcome.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct CheckExpect {
    /// clean | racy | divergent | unfixable | deadlock | ...
    pub outcome: String,
    /// Racing source-line pairs `[earlier, later]`.
    #[serde(default)]
    pub races: Vec<[u32; 2]>,
    /// Benign races (every thread stores the same value): warnings, races under `--strict`.
    #[serde(default)]
    pub benign: Vec<[u32; 2]>,
    /// Races only overlapping layouts make (a zero stride, rows closer than their length):
    /// warnings, races under `--strict`.
    #[serde(default)]
    pub layout: Vec<[u32; 2]>,
    /// Extra pairs the oracle reports that cannot happen, each with its cause.
    #[serde(default)]
    pub imprecise: Vec<Imprecision>,
    /// Why the named-barrier checker reports more pairs than the SDV checker on this kernel
    /// (it is sound but does not use what the SDV checker uses, e.g. preconditions).
    #[serde(default)]
    pub named_imprecise: Option<String>,
    /// Other defect classes the checker may name for the same defect, each with its cause.
    #[serde(default)]
    pub alternative_outcomes: Vec<AlternativeOutcome>,
}

/// A documented alternative classification of a defect.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct AlternativeOutcome {
    /// The class the checker may report instead.
    pub outcome: String,
    /// Why.
    pub reason: String,
}

/// A documented false alarm.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct Imprecision {
    /// The reported line pair.
    pub lines: [u32; 2],
    /// Why the oracle reports it.
    pub reason: String,
}

/// Expected synthesis outcome.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
pub struct FixExpect {
    /// fixed | clean | partial | unfixable.
    pub outcome: String,
    /// Minimum number of barriers to insert.
    #[serde(default)]
    pub barriers: Option<u32>,
    /// Expected placement cost.
    #[serde(default)]
    pub cost: Option<f64>,
    /// Why the kernel cannot be fixed (same-statement, inter-block, divergent-region, ...).
    #[serde(default)]
    pub reason: Option<String>,
    /// Cost after `fix --minimize`, when autosync finds a cheaper placement than the author's.
    #[serde(default)]
    pub minimized_cost: Option<f64>,
    /// Cost of the placement `fix` synthesizes for the kernel stripped of its barriers, when it
    /// is above the author's (a limit of the placement encoding, stated in `refix_reason`).
    #[serde(default)]
    pub refix_cost: Option<f64>,
    /// Outcome of `fix` on the kernel stripped of its barriers when it is not a fix (a limit of
    /// the placement encoding, stated in `refix_reason`): `partial` or `unfixable`.
    #[serde(default)]
    pub refix_outcome: Option<String>,
    /// Why `refix_cost` is above the author's cost, or why `refix_outcome` is not `fixed`.
    #[serde(default)]
    pub refix_reason: Option<String>,
}

impl Entry {
    /// Absolute path of the kernel file given the corpus directory.
    pub fn file(&self, corpus: &Path) -> PathBuf {
        corpus.join(&self.path)
    }

    /// Whether the kernel needs the real toolkit.
    pub fn needs_toolkit(&self) -> bool {
        self.toolkit == Some(Toolkit::Required)
    }

    /// Whether the kernel is read with the built-in shim only.
    pub fn shim_only(&self) -> bool {
        self.toolkit == Some(Toolkit::Shim)
    }

    /// Front-end options for this entry: the built-in shim (so that verdicts do not depend on
    /// what the machine has installed), or for a kernel that needs it the test toolkit.
    pub fn front_options(&self) -> autosync::front::FrontOptions {
        match crate::toolkit::find().filter(|_| self.needs_toolkit()) {
            Some(tk) => self.front_options_in(Some(&tk)),
            None => self.front_options_in(None),
        }
    }

    /// Front-end options reading the kernel with `toolkit` (None: the built-in shim);
    /// `$CUTLASS_INCLUDE` in include directories is the toolkit's CUTLASS.
    pub fn front_options_in(&self, toolkit: Option<&crate::toolkit::TestToolkit>) -> autosync::front::FrontOptions {
        let mut o = self.base_front_options();
        o.clang.arch = self.arch.clone();
        match toolkit {
            Some(tk) => {
                o.clang.cuda_path = Some(tk.cuda.clone());
                let cutlass = tk.cutlass_include.clone().unwrap_or_default();
                o.include_dirs = self
                    .include_dirs
                    .iter()
                    .map(|d| match d.strip_prefix("$CUTLASS_INCLUDE") {
                        Some(rest) => cutlass.join(rest.trim_start_matches('/')),
                        None => Path::new("corpus").join(d),
                    })
                    .collect();
            }
            None => o.clang.shim = true,
        }
        o
    }

    /// Front-end options for this entry (its params, defines, template values, include
    /// directories).
    fn base_front_options(&self) -> autosync::front::FrontOptions {
        let text = |v: &serde_yaml_ng::Value| match v {
            serde_yaml_ng::Value::Number(n) => n.to_string(),
            serde_yaml_ng::Value::String(s) => s.clone(),
            serde_yaml_ng::Value::Bool(b) => b.to_string(),
            other => format!("{other:?}"),
        };
        autosync::front::FrontOptions {
            kernel: Some(self.kernel.clone()),
            params: self.params.clone(),
            defines: self
                .defines
                .iter()
                .map(|(k, v)| {
                    let v = match v {
                        serde_yaml_ng::Value::Bool(b) => (*b as i32).to_string(),
                        v => text(v),
                    };
                    (k.clone(), Some(v))
                })
                .collect(),
            template_values: self.template_values.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
            include_dirs: self.include_dirs.iter().map(|d| Path::new("corpus").join(d)).collect(),
            ..Default::default()
        }
    }
}

/// Reads and parses a manifest file, keeping the kernels this machine can read: those that
/// need the real toolkit only when the tests have one (a run that requires it panics without).
pub fn load(path: &Path) -> Result<Manifest, String> {
    let mut m = load_readable(path)?;
    m.kernels.retain(|e| e.pending.is_none());
    Ok(m)
}

/// The kernels this machine can read, pending ones included.
pub fn load_readable(path: &Path) -> Result<Manifest, String> {
    let mut m = load_all(path)?;
    if m.kernels.iter().any(Entry::needs_toolkit) && crate::toolkit::for_test("toolkit kernels").is_none() {
        m.kernels.retain(|e| !e.needs_toolkit());
    }
    Ok(m)
}

/// Reads and parses a manifest file, every kernel.
pub fn load_all(path: &Path) -> Result<Manifest, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_yaml_ng::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
