//! The project configuration file, `autosync.yaml`, found by walking up from each input file.
//!
//! It holds what would otherwise be repeated on every command line: launch configurations and
//! parameter values per kernel name or path glob, include directories and defines, the cost
//! constants, reserved named-barrier IDs, the named-barrier emission style, files to exclude and
//! findings to suppress (`ignore:`).
//! Unknown keys and bad values are errors located at `file:line:col`.
//!
//! Precedence (first wins): CLI flags, this file, the in-source `//--blockDim=` header,
//! `__launch_bounds__`.

use crate::front::launch::{parse_dim, FileLaunch, LaunchLayer};
use crate::front::FrontOptions;
use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The file name looked for in each directory.
pub const FILE_NAME: &str = "autosync.yaml";

/// A configuration error with its location in the config file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file.
    pub path: PathBuf,
    /// 1-based line and column, when the parser knows them.
    pub line_col: Option<(usize, usize)>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line_col {
            Some((l, c)) => write!(f, "{}:{l}:{c}: error: {}", self.path.display(), self.message),
            None => write!(f, "{}: error: {}", self.path.display(), self.message),
        }
    }
}

impl std::error::Error for ConfigError {}

/// A named-barrier emission style.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NamedStyle {
    /// CUTLASS `NamedBarrier` if the kernel uses it, else the file's own barrier helper function
    /// or macro (per kind), inline PTX otherwise.
    Auto,
    /// Always inline PTX `bar.sync` / `bar.arrive` (`asm volatile(...)`).
    Asm,
    /// CUTLASS-style `NamedBarrier::sync(N, ID)` / `arrive(N, ID)`.
    Cutlass,
    /// The file's own helper function or macro (`named_sync(ID, N)`); inline PTX with a note for
    /// a kind it has no helper for.
    Macro,
}

impl NamedStyle {
    /// The synthesis setting: `None` follows the kernel.
    pub fn setting(self) -> Option<crate::synth::named::NamedStyle> {
        match self {
            NamedStyle::Auto => None,
            NamedStyle::Asm => Some(crate::synth::named::NamedStyle::Asm),
            NamedStyle::Cutlass => Some(crate::synth::named::NamedStyle::Cutlass),
            NamedStyle::Macro => Some(crate::synth::named::NamedStyle::Macro),
        }
    }
}

/// A validated block or grid dimension (each component >= 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dim(pub [u32; 3]);

impl<'de> Deserialize<'de> for Dim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Dim;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a dimension: 256, [16, 16] or [8, 8, 4], each component >= 1")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Dim, E> {
                match u32::try_from(v) {
                    Ok(x) if x >= 1 => Ok(Dim([x, 1, 1])),
                    _ => Err(E::custom(format!("dimension {v} must be between 1 and {}", u32::MAX))),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Dim, E> {
                match u64::try_from(v) {
                    Ok(x) => self.visit_u64(x),
                    Err(_) => Err(E::custom(format!("dimension {v} must be >= 1"))),
                }
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Dim, E> {
                parse_dim(v).map(Dim).ok_or_else(|| {
                    E::custom(format!(
                        "`{v}` is not a dimension (use 256, [16, 16] or [8, 8, 4]; each >= 1)"
                    ))
                })
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Dim, A::Error> {
                let mut d = [1u32; 3];
                let mut n = 0;
                while let Some(v) = seq.next_element::<u64>()? {
                    if n == 3 {
                        return Err(de::Error::custom("a dimension has at most 3 components"));
                    }
                    d[n] = match u32::try_from(v) {
                        Ok(x) if x >= 1 => x,
                        _ => return Err(de::Error::custom(format!("dimension component {v} must be >= 1"))),
                    };
                    n += 1;
                }
                if n == 0 {
                    return Err(de::Error::custom("a dimension needs 1 to 3 components"));
                }
                Ok(Dim(d))
            }
        }
        d.deserialize_any(V)
    }
}

/// A `defines:` value: a number, string or boolean (`NAME=VALUE`), or null (`NAME` alone).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefineValue(pub Option<String>);

impl<'de> Deserialize<'de> for DefineValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = DefineValue;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number, string, boolean or null")
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DefineValue, E> {
                Ok(DefineValue(Some(v.to_string())))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DefineValue, E> {
                Ok(DefineValue(Some(v.to_string())))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DefineValue, E> {
                Ok(DefineValue(Some(v.to_string())))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<DefineValue, E> {
                Ok(DefineValue(Some(u8::from(v).to_string())))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DefineValue, E> {
                Ok(DefineValue(Some(v.to_string())))
            }
            fn visit_unit<E: de::Error>(self) -> Result<DefineValue, E> {
                Ok(DefineValue(None))
            }
            fn visit_none<E: de::Error>(self) -> Result<DefineValue, E> {
                Ok(DefineValue(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// A cost factor with a lower bound, checked while parsing so the error carries a location.
fn cost_factor<'de, D: Deserializer<'de>>(d: D, what: &str, min: f64, inclusive: bool) -> Result<f64, D::Error> {
    let v = f64::deserialize(d)?;
    let ok = v.is_finite() && if inclusive { v >= min } else { v > min };
    if ok {
        Ok(v)
    } else {
        let rel = if inclusive { ">=" } else { ">" };
        Err(de::Error::custom(format!(
            "cost.{what} must be a number {rel} {min}, not {v}"
        )))
    }
}

fn loop_cost<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    cost_factor(d, "loop", 1.0, true).map(Some)
}

fn if_cost<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    cost_factor(d, "if", 0.0, false).map(Some)
}

fn barrier_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u32>>, D::Error> {
    let ids = Vec::<u64>::deserialize(d)?;
    let mut out = Vec::new();
    for id in ids {
        if id > 15 {
            return Err(de::Error::custom(format!(
                "reserved barrier id {id} is outside 0..=15 (PTX has 16 named barriers)"
            )));
        }
        out.push(id as u32);
    }
    Ok(Some(out))
}

/// `cost:` — the constants of the barrier cost model.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CostConfig {
    /// Cost factor per enclosing loop (>= 1).
    #[serde(default, rename = "loop", deserialize_with = "loop_cost")]
    pub loop_factor: Option<f64>,
    /// Cost factor per enclosing if (> 0).
    #[serde(default, rename = "if", deserialize_with = "if_cost")]
    pub if_factor: Option<f64>,
}

/// One `kernels:` entry: launch settings for kernels matching a name and/or a path glob.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelEntry {
    /// Kernel function name (exact).
    #[serde(default)]
    pub name: Option<String>,
    /// Path glob, relative to the config file's directory (`sdk/*.cu`, `**/reduce*.cu`).
    #[serde(default)]
    pub path: Option<String>,
    /// Threads per block.
    #[serde(default)]
    pub block_dim: Option<Dim>,
    /// Blocks per grid.
    #[serde(default)]
    pub grid_dim: Option<Dim>,
    /// Lanes of a warp of N threads run in lock step.
    #[serde(default)]
    pub warp_sync: Option<u32>,
    /// Values of the template parameters of a kernel template the file never instantiates.
    #[serde(default)]
    pub template_args: BTreeMap<String, DefineValue>,
    /// Concrete values of scalar kernel parameters.
    #[serde(default)]
    pub params: BTreeMap<String, i64>,
}

/// An `ignore:` entry as written.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIgnore {
    #[serde(default)]
    kernel: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    rule: Option<String>,
    #[serde(default)]
    rules: Option<Vec<String>>,
    #[serde(default)]
    reason: Option<String>,
}

/// One `ignore:` entry: findings of these rules in these kernels/files are suppressed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IgnoreEntry {
    /// Kernel function name (exact); `None` for every kernel of the matching files.
    pub kernel: Option<String>,
    /// Path glob as written (relative to the config file's directory).
    pub path: Option<String>,
    /// Rules (canonical names); `None` for every rule.
    pub rules: Option<Vec<String>>,
    /// Why, as the user wrote it.
    pub reason: Option<String>,
    /// The config file.
    pub config: PathBuf,
    /// 1-based line of the entry in the config file, when found.
    pub line: Option<usize>,
}

impl IgnoreEntry {
    /// Whether it suppresses findings of `rule`.
    pub fn covers(&self, rule: &str) -> bool {
        self.rules.as_ref().is_none_or(|r| r.iter().any(|x| x == rule))
    }

    /// `autosync.yaml:7: ignore kernel `k`, rules race`: how outputs name it.
    pub fn describe(&self) -> String {
        let mut what = Vec::new();
        if let Some(k) = &self.kernel {
            what.push(format!("kernel `{k}`"));
        }
        if let Some(p) = &self.path {
            what.push(format!("path `{p}`"));
        }
        if let Some(r) = &self.rules {
            what.push(format!("rules {}", r.join(", ")));
        }
        let at = match self.line {
            Some(l) => format!("{}:{l}", self.config.display()),
            None => self.config.display().to_string(),
        };
        format!("{at}: ignore {}", what.join(", "))
    }
}

/// The file as written (before globs are compiled and paths resolved).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    kernels: Vec<KernelEntry>,
    #[serde(default)]
    include_dirs: Vec<PathBuf>,
    #[serde(default)]
    defines: BTreeMap<String, DefineValue>,
    #[serde(default)]
    cost: CostConfig,
    #[serde(default, deserialize_with = "barrier_ids")]
    reserved_ids: Option<Vec<u32>>,
    #[serde(default)]
    named_style: Option<NamedStyle>,
    #[serde(default)]
    exclude: Vec<String>,
    #[serde(default)]
    clang: Option<PathBuf>,
    #[serde(default)]
    cuda_path: Option<PathBuf>,
    #[serde(default)]
    cuda_shim: bool,
    #[serde(default)]
    arch: Option<String>,
    #[serde(default)]
    std: Option<String>,
    #[serde(default)]
    assume_pure: Vec<String>,
    #[serde(default)]
    ignore: Vec<RawIgnore>,
}

/// A loaded, validated configuration.
#[derive(Clone, Debug)]
pub struct Config {
    /// The config file.
    pub path: PathBuf,
    /// Its directory: globs and include dirs are relative to it.
    pub dir: PathBuf,
    /// Per-kernel launch settings, in file order (later entries win).
    pub kernels: Vec<KernelEntry>,
    /// Include directories (absolute).
    pub include_dirs: Vec<PathBuf>,
    /// Preprocessor / template defines.
    pub defines: Vec<(String, Option<String>)>,
    /// Cost constants.
    pub cost: CostConfig,
    /// Named-barrier IDs synthesis must not use.
    pub reserved_ids: Option<Vec<u32>>,
    /// How named barriers are written.
    pub named_style: Option<NamedStyle>,
    /// The Clang executable (`clang:`).
    pub clang: Option<PathBuf>,
    /// A CUDA toolkit to read headers from (`cuda_path:`).
    pub cuda_path: Option<PathBuf>,
    /// Read the built-in CUDA shim even when a toolkit is installed (`cuda_shim: true`).
    pub cuda_shim: bool,
    /// GPU architecture (`arch:`).
    pub arch: Option<String>,
    /// C++ standard (`std:`).
    pub std: Option<String>,
    /// Functions declared free of memory effects and synchronization (`assume_pure:`).
    pub assume_pure: Vec<String>,
    /// `ignore:` entries (suppressions), in file order.
    pub ignore: Vec<IgnoreEntry>,
    kernel_globs: Vec<Option<globset::GlobMatcher>>,
    ignore_globs: Vec<Option<globset::GlobMatcher>>,
    exclude: GlobSet,
}

fn yaml_error(path: &Path, e: &serde_yaml_ng::Error) -> ConfigError {
    // The library appends " at line L column C" to its message; the location is reported apart.
    let msg = e.to_string();
    let message = match msg.find(" at line ") {
        Some(i) if e.location().is_some() => msg[..i].to_string(),
        _ => msg,
    };
    ConfigError {
        path: path.to_path_buf(),
        line_col: e.location().map(|l| (l.line(), l.column())),
        message,
    }
}

/// Finds the 1-based line and column of the first occurrence of `needle` as a YAML value.
fn locate(text: &str, needle: &str) -> Option<(usize, usize)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let code = line.split(" #").next().unwrap_or(line);
        code.find(needle).map(|c| (i + 1, c + 1))
    })
}

fn compile_glob(path: &Path, text: &str, pattern: &str) -> Result<globset::Glob, ConfigError> {
    Glob::new(pattern).map_err(|e| ConfigError {
        path: path.to_path_buf(),
        line_col: locate(text, pattern),
        message: format!("bad glob `{pattern}`: {}", e.kind()),
    })
}

impl Config {
    /// Parses config text; `path` locates errors and anchors relative paths.
    pub fn parse(path: &Path, text: &str) -> Result<Config, ConfigError> {
        // An empty file (or only comments) is a valid, empty configuration.
        let raw: RawConfig = if text.lines().all(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t == "---"
        }) {
            RawConfig::default()
        } else {
            serde_yaml_ng::from_str(text).map_err(|e| yaml_error(path, &e))?
        };
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let mut kernel_globs = Vec::new();
        for (i, k) in raw.kernels.iter().enumerate() {
            if k.name.is_none() && k.path.is_none() {
                return Err(ConfigError {
                    path: path.to_path_buf(),
                    line_col: entry_location(text, "kernels:", i),
                    message: format!("kernels[{i}] needs a `name` or a `path` to say which kernels it applies to"),
                });
            }
            if let Some(d) = k.block_dim {
                let threads: u64 = d.0.iter().map(|&x| x as u64).product();
                if threads > 1024 {
                    return Err(ConfigError {
                        path: path.to_path_buf(),
                        line_col: entry_location(text, "kernels:", i),
                        message: format!(
                            "kernels[{i}].block_dim has {threads} threads; CUDA allows at most 1024 per block"
                        ),
                    });
                }
            }
            kernel_globs.push(match &k.path {
                Some(p) => Some(compile_glob(path, text, p)?.compile_matcher()),
                None => None,
            });
        }
        let (ignore, ignore_globs) = ignore_entries(path, text, &raw.ignore)?;
        let mut ex = GlobSetBuilder::new();
        for p in &raw.exclude {
            ex.add(compile_glob(path, text, p)?);
        }
        let exclude = ex.build().map_err(|e| ConfigError {
            path: path.to_path_buf(),
            line_col: None,
            message: format!("bad exclude globs: {e}"),
        })?;
        Ok(Config {
            path: path.to_path_buf(),
            include_dirs: raw.include_dirs.iter().map(|d| dir.join(d)).collect(),
            dir: dir.clone(),
            kernels: raw.kernels,
            defines: raw.defines.into_iter().map(|(k, v)| (k, v.0)).collect(),
            cost: raw.cost,
            reserved_ids: raw.reserved_ids,
            named_style: raw.named_style,
            // A path with a directory part is relative to the config file; a bare name is
            // looked up on PATH.
            clang: raw.clang.clone().map(|c| {
                if c.components().count() > 1 && c.is_relative() {
                    dir.join(c)
                } else {
                    c
                }
            }),
            cuda_path: raw.cuda_path.map(|c| if c.is_relative() { dir.join(c) } else { c }),
            cuda_shim: raw.cuda_shim,
            arch: raw.arch,
            std: raw.std,
            assume_pure: raw.assume_pure,
            ignore,
            kernel_globs,
            ignore_globs,
            exclude,
        })
    }

    /// Reads and parses a config file.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            path: path.to_path_buf(),
            line_col: None,
            message: format!("cannot read: {e}"),
        })?;
        Config::parse(path, &text)
    }

    /// `file` relative to the config directory, with `/` separators, for glob matching.
    fn relative(&self, file: &Path) -> Option<PathBuf> {
        let abs = absolute(file);
        abs.strip_prefix(absolute(&self.dir)).ok().map(Path::to_path_buf)
    }

    /// Template parameter values for `file`'s kernel templates, by kernel name.
    pub fn template_args_for(&self, file: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
        let rel = self.relative(file);
        let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
        for (k, glob) in self.kernels.iter().zip(&self.kernel_globs) {
            if glob
                .as_ref()
                .is_some_and(|g| !rel.as_ref().is_some_and(|r| g.is_match(r)))
            {
                continue;
            }
            let Some(name) = &k.name else { continue };
            let e = out.entry(name.clone()).or_default();
            for (p, v) in &k.template_args {
                if let Some(v) = &v.0 {
                    e.insert(p.clone(), v.clone());
                }
            }
        }
        out
    }

    /// Whether `file` matches an `exclude:` glob.
    pub fn is_excluded(&self, file: &Path) -> bool {
        self.relative(file).is_some_and(|r| self.exclude.is_match(r))
    }

    /// The `ignore:` entries whose path glob (if any) matches `file`.
    pub fn ignores_for(&self, file: &Path) -> Vec<IgnoreEntry> {
        let rel = self.relative(file);
        self.ignore
            .iter()
            .zip(&self.ignore_globs)
            .filter(|(_, g)| g.as_ref().is_none_or(|g| rel.as_ref().is_some_and(|r| g.is_match(r))))
            .map(|(e, _)| e.clone())
            .collect()
    }

    /// The launch settings this file contributes to `file`'s kernels.
    pub fn launch_for(&self, file: &Path) -> FileLaunch {
        let rel = self.relative(file);
        let mut out = FileLaunch::default();
        for (k, glob) in self.kernels.iter().zip(&self.kernel_globs) {
            if let Some(g) = glob {
                if !rel.as_ref().is_some_and(|r| g.is_match(r)) {
                    continue;
                }
            }
            let layer = match &k.name {
                Some(n) => out.by_kernel.entry(n.clone()).or_default(),
                None => &mut out.all,
            };
            overlay(layer, k);
        }
        out
    }
}

/// Later entries win, key by key.
fn overlay(layer: &mut LaunchLayer, k: &KernelEntry) {
    if let Some(d) = k.block_dim {
        layer.block_dim = Some(d.0);
    }
    if let Some(d) = k.grid_dim {
        layer.grid_dim = Some(d.0);
    }
    if let Some(w) = k.warp_sync {
        layer.warp_sync = Some(w);
    }
    for (n, v) in &k.params {
        layer.params.insert(n.clone(), *v);
    }
}

/// Validates the `ignore:` entries and compiles their path globs.
fn ignore_entries(
    path: &Path,
    text: &str,
    raw: &[RawIgnore],
) -> Result<(Vec<IgnoreEntry>, Vec<Option<globset::GlobMatcher>>), ConfigError> {
    let mut entries = Vec::new();
    let mut globs = Vec::new();
    for (i, e) in raw.iter().enumerate() {
        let at = entry_location(text, "ignore:", i);
        let err = |message: String| ConfigError {
            path: path.to_path_buf(),
            line_col: at,
            message,
        };
        if e.kernel.is_none() && e.path.is_none() {
            return Err(err(format!(
                "ignore[{i}] needs a `kernel` or a `path` to say which findings it suppresses"
            )));
        }
        let names: Option<Vec<&String>> = match (&e.rule, &e.rules) {
            (Some(_), Some(_)) => return Err(err(format!("ignore[{i}] has both `rule` and `rules`; use one"))),
            (Some(r), None) => Some(vec![r]),
            (None, Some(rs)) => Some(rs.iter().collect()),
            (None, None) => None,
        };
        let rules = match names {
            Some(ns) => Some(
                ns.into_iter()
                    .map(|n| crate::vocab::rules::check_rule(n).map_err(|m| err(format!("ignore[{i}]: {m}"))))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            None => None,
        };
        globs.push(match &e.path {
            Some(p) => Some(compile_glob(path, text, p)?.compile_matcher()),
            None => None,
        });
        entries.push(IgnoreEntry {
            kernel: e.kernel.clone(),
            path: e.path.clone(),
            rules,
            reason: e.reason.clone(),
            config: path.to_path_buf(),
            line: at.map(|(l, _)| l),
        });
    }
    Ok((entries, globs))
}

/// Front-end options for `file`: the command line's `base` over the config file's settings.
pub fn front_options_for(base: &FrontOptions, cfg: Option<&Config>, file: &Path) -> FrontOptions {
    let mut o = base.clone();
    let Some(cfg) = cfg else { return o };
    // Command-line defines win over the config's for the same name.
    for (n, v) in &cfg.defines {
        if !o.defines.iter().any(|(m, _)| m == n) {
            o.defines.push((n.clone(), v.clone()));
        }
    }
    o.include_dirs.extend(cfg.include_dirs.iter().cloned());
    o.file_launch = cfg.launch_for(file);
    o.kernel_template_values = cfg.template_args_for(file);
    let c = &mut o.clang;
    c.clang = c.clang.take().or_else(|| cfg.clang.clone());
    c.cuda_path = c.cuda_path.take().or_else(|| cfg.cuda_path.clone());
    c.shim |= cfg.cuda_shim;
    c.arch = c.arch.take().or_else(|| cfg.arch.clone());
    c.std = c.std.take().or_else(|| cfg.std.clone());
    o.assume_pure.extend(cfg.assume_pure.iter().cloned());
    o
}

/// Location of the i-th `- ` item under the top-level key `section` (`kernels:`), for errors
/// found after parsing.
fn entry_location(text: &str, section: &str, i: usize) -> Option<(usize, usize)> {
    let mut in_section = false;
    let mut seen = 0;
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if !line.starts_with([' ', '\t', '-']) && !t.is_empty() && !t.starts_with('#') {
            in_section = t.starts_with(section);
            continue;
        }
        if in_section && t.starts_with("- ") {
            if seen == i {
                return Some((n + 1, line.len() - t.len() + 1));
            }
            seen += 1;
        }
    }
    None
}

fn absolute(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()))
}

/// Finds the nearest `autosync.yaml` in `file`'s directory or any ancestor.
pub fn find_for(file: &Path) -> Option<PathBuf> {
    let abs = absolute(file);
    let start = if abs.is_dir() { abs.as_path() } else { abs.parent()? };
    start.ancestors().map(|d| d.join(FILE_NAME)).find(|c| c.is_file())
}

/// Loads each config file once, however many inputs share it (safe to use from threads).
#[derive(Default)]
pub struct ConfigCache {
    /// An explicit `--config` file used for every input instead of discovery.
    explicit: Option<PathBuf>,
    /// `--no-config`.
    disabled: bool,
    loaded: Mutex<HashMap<PathBuf, Result<std::sync::Arc<Config>, ConfigError>>>,
}

impl ConfigCache {
    /// A cache that discovers configs, uses `explicit` for every file, or none (`disabled`).
    pub fn new(explicit: Option<PathBuf>, disabled: bool) -> Self {
        ConfigCache {
            explicit,
            disabled,
            loaded: Mutex::new(HashMap::new()),
        }
    }

    /// The configuration that applies to `file`, if any.
    pub fn for_file(&self, file: &Path) -> Result<Option<std::sync::Arc<Config>>, ConfigError> {
        if self.disabled {
            return Ok(None);
        }
        let Some(path) = self.explicit.clone().or_else(|| find_for(file)) else {
            return Ok(None);
        };
        let mut map = self.loaded.lock().unwrap_or_else(|p| p.into_inner());
        let entry = map
            .entry(path.clone())
            .or_insert_with(|| Config::load(&path).map(std::sync::Arc::new));
        entry.clone().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(Path::new("/p/autosync.yaml"), text)
    }

    #[test]
    fn full_file_parses() {
        let c = parse(
            "kernels:\n  - name: reduce\n    block_dim: [16, 16]\n    params: {n: 64}\n  - path: 'sdk/*.cu'\n    block_dim: 128\n    grid_dim: '[4,4]'\ninclude_dirs: [inc]\ndefines: {N: 4, FAST: null, ON: true}\ncost: {loop: 50, if: 0.25}\nreserved_ids: [1, 2]\nnamed_style: asm\nexclude: ['third_party/**']\n",
        )
        .unwrap();
        assert_eq!(c.kernels.len(), 2);
        assert_eq!(c.include_dirs, vec![PathBuf::from("/p/inc")]);
        assert_eq!(c.cost.loop_factor, Some(50.0));
        assert_eq!(c.cost.if_factor, Some(0.25));
        assert_eq!(c.reserved_ids, Some(vec![1, 2]));
        assert_eq!(c.named_style, Some(NamedStyle::Asm));
        assert!(c.defines.contains(&("FAST".into(), None)));
        assert!(c.defines.contains(&("ON".into(), Some("1".into()))));
        assert!(c.is_excluded(Path::new("/p/third_party/x/k.cu")));
        assert!(!c.is_excluded(Path::new("/p/sdk/k.cu")));
        let l = c.launch_for(Path::new("/p/sdk/k.cu"));
        assert_eq!(l.all.block_dim, Some([128, 1, 1]));
        assert_eq!(l.all.grid_dim, Some([4, 4, 1]));
        assert_eq!(l.by_kernel["reduce"].block_dim, Some([16, 16, 1]));
        assert_eq!(l.for_kernel("reduce").params["n"], 64);
        assert_eq!(c.launch_for(Path::new("/p/other/k.cu")).all.block_dim, None);
    }

    #[test]
    fn named_style_macro_parses() {
        let c = parse("named_style: macro\n").unwrap();
        assert_eq!(c.named_style, Some(NamedStyle::Macro));
        assert_eq!(
            NamedStyle::Macro.setting(),
            Some(crate::synth::named::NamedStyle::Macro)
        );
    }

    #[test]
    fn errors_carry_locations() {
        let e = parse("kernels:\n  - name: k\n    blockdim: 4\n").unwrap_err();
        assert_eq!(e.line_col.map(|l| l.0), Some(3), "{e}");
        assert!(e.message.contains("unknown field `blockdim`"), "{e}");
        let e = parse("cost:\n  loop: 0.5\n").unwrap_err();
        assert_eq!(e.line_col.map(|l| l.0), Some(2), "{e}");
        let e = parse("kernels:\n  - name: k\n    block_dim: [0, 2]\n").unwrap_err();
        assert_eq!(e.line_col.map(|l| l.0), Some(3), "{e}");
        let e = parse("kernels:\n  - block_dim: 32\n").unwrap_err();
        assert_eq!(e.line_col, Some((2, 3)), "{e}");
        let e = parse("exclude: ['a/[b']\n").unwrap_err();
        assert_eq!(e.line_col.map(|l| l.0), Some(1), "{e}");
        let e = parse("kernels: []\nignore:\n  - kernel: k\n  - rules: [race]\n").unwrap_err();
        assert_eq!(e.line_col, Some((4, 3)), "{e}");
        assert!(e.message.contains("needs a `kernel` or a `path`"), "{e}");
        let e = parse("ignore:\n  - kernel: k\n    rule: rase\n").unwrap_err();
        assert!(e.message.contains("unknown rule `rase`"), "{e}");
    }

    #[test]
    fn ignore_entries_match_kernels_paths_and_rules() {
        let c = parse("ignore:\n  - kernel: k\n    rule: divergence\n  - path: 'legacy/**'\n    reason: old code\n")
            .unwrap();
        let here = c.ignores_for(Path::new("/p/src/a.cu"));
        assert_eq!(here.len(), 1);
        assert_eq!(here[0].rules, Some(vec!["barrier-divergence".to_string()]));
        assert!(here[0].covers("barrier-divergence") && !here[0].covers("race"));
        assert_eq!(here[0].line, Some(2));
        let legacy = c.ignores_for(Path::new("/p/legacy/x/b.cu"));
        assert_eq!(legacy.len(), 2);
        assert!(legacy[1].covers("race"));
        assert_eq!(legacy[1].describe(), "/p/autosync.yaml:4: ignore path `legacy/**`");
    }
}
