//! The result cache in a run: which store ([`CacheChoice`]), and kernel reports found in it by
//! everything a report depends on: the kernel's lowered IR (its code with every callee
//! inlined, so a changed header or helper changes it; its launch; its spans and files, so a
//! report's locations stay right), the checker's options, autosync's build and the solver's
//! version. A report that wall-clock time cut short is not kept: a rerun may get further.
//! Lowered files are kept too ([`Units`]): a file whose text, options, toolchain and every file
//! Clang read are unchanged is not read by Clang again.

use super::options::{CacheChoice, CheckOptions};
use crate::cache::{Key, Store, DEFAULT_MAX_BYTES, DIR_NAME};
use crate::front::{SourceUnit, UnitCache};
use crate::jobs::check::check_kernel_within;
use autosync_oracle::ir::Kernel;
use autosync_oracle::report::Report;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The store a run uses (`None`: off, or no directory could be made — then nothing is cached).
pub(super) fn open(choice: &CacheChoice) -> Option<Store> {
    let dir = match choice {
        CacheChoice::Off => return None,
        CacheChoice::Dir(d) => d.clone(),
        CacheChoice::Project => project_dir(),
    };
    Store::open(&dir).ok()
}

/// Drops the least recently used entries once the store outgrows its limit.
pub(super) fn prune(store: Option<&Store>) {
    if let Some(s) = store {
        s.prune(DEFAULT_MAX_BYTES);
    }
}

/// `.autosync_cache` in the nearest directory at or above the current one that holds an
/// `autosync.yaml` or a `.git`; else in the user's cache directory.
fn project_dir() -> PathBuf {
    let cwd = std::env::current_dir().unwrap_or_default();
    let root = cwd
        .ancestors()
        .find(|d| d.join(super::config::FILE_NAME).is_file() || d.join(".git").exists());
    match root {
        Some(r) => r.join(DIR_NAME),
        None => crate::front::clang::shim::cache_base().join("autosync").join("results"),
    }
}

/// The running build: version, and the executable's size and modification time (a rebuilt
/// autosync never reads its predecessor's answers), and the solver library's version.
fn build_identity() -> &'static str {
    static ID: OnceLock<String> = OnceLock::new();
    ID.get_or_init(|| {
        let exe = std::env::current_exe().ok();
        let meta = exe.as_deref().and_then(|e| std::fs::metadata(e).ok());
        let stamp = meta.map(|m| {
            let t = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            format!("{} {}", m.len(), t.map_or(0, |d| d.as_nanos()))
        });
        format!(
            "{} {} {}",
            env!("CARGO_PKG_VERSION"),
            stamp.unwrap_or_default(),
            autosync_oracle::solver_version()
        )
    })
}

/// A kernel's report and checker (`check`'s job), from the store when it holds one; the flag
/// says it came from there.
pub(super) fn check_kernel(store: Option<&Store>, k: &Kernel, o: &CheckOptions) -> (Report, &'static str, bool) {
    let run = || check_kernel_within(k, o.oracle, o.timeout_ms, Some(o.kernel_timeout), o.strict);
    let Some((store, key)) = store.zip(check_key(k, o)) else {
        let (r, c) = run();
        return (r, c, false);
    };
    if let Some((r, c)) = store.get(&key).and_then(|b| decode(&b)) {
        return (r, c, true);
    }
    let (report, checker) = run();
    if !report.out_of_time {
        if let Ok(bytes) = serde_json::to_vec(&(&report, checker)) {
            store.put(&key, &bytes);
        }
    }
    (report, checker, false)
}

fn check_key(k: &Kernel, o: &CheckOptions) -> Option<Key> {
    let mut b = Key::builder("check-kernel");
    b.part(build_identity().as_bytes());
    b.json(&(o.oracle, o.timeout_ms, o.kernel_timeout.as_millis() as u64, o.strict))?;
    b.json(k)?;
    Some(b.finish())
}

fn decode(bytes: &[u8]) -> Option<(Report, &'static str)> {
    let (report, checker): (Report, String) = serde_json::from_slice(bytes).ok()?;
    let checker = ["sdv", "named"].into_iter().find(|c| *c == checker)?;
    Some((report, checker))
}

/// Lowered files in the store. An entry records the size and modification time of every file
/// the reading depended on; one that differs now makes the entry a miss.
pub(super) struct Units<'s>(pub(super) &'s Store);

/// How recently a file may have been modified for a unit read from it to be kept.
const RACY_NANOS: u128 = 1_000_000_000;

/// A file's size and modification time (nanoseconds), or nothing when it is gone.
type Stamp = Option<(u64, u128)>;

fn stamp(p: &std::path::Path) -> Stamp {
    let m = std::fs::metadata(p).ok()?;
    let t = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?;
    Some((m.len(), t.as_nanos()))
}

fn unit_key(reading: &str, text: &str) -> Key {
    let mut b = Key::builder("front-unit");
    b.part(build_identity().as_bytes())
        .part(reading.as_bytes())
        .part(text.as_bytes());
    b.finish()
}

impl UnitCache for Units<'_> {
    fn get(&self, reading: &str, text: &str) -> Option<SourceUnit> {
        let bytes = self.0.get(&unit_key(reading, text))?;
        let (stamps, unit): (Vec<Stamp>, SourceUnit) = serde_json::from_slice(&bytes).ok()?;
        let same = stamps.len() == unit.inputs.len() && unit.inputs.iter().zip(&stamps).all(|(p, s)| stamp(p) == *s);
        same.then_some(unit)
    }

    fn put(&self, reading: &str, text: &str, unit: &SourceUnit) {
        let stamps: Vec<Stamp> = unit.inputs.iter().map(|p| stamp(p)).collect();
        // A file that vanished while Clang read it (or that Clang never found) leaves nothing
        // to compare with; one written in the last second may be written again within the
        // file system's timestamp tick at the same size, unseen: neither is kept.
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
        let recent = |s: &Stamp| match (s, &now) {
            (Some((_, t)), Ok(now)) => now.as_nanos().saturating_sub(*t) < RACY_NANOS,
            _ => true,
        };
        if unit.inputs.is_empty() || stamps.iter().any(recent) {
            return;
        }
        if let Ok(bytes) = serde_json::to_vec(&(&stamps, unit)) {
            self.0.put(&unit_key(reading, text), &bytes);
        }
    }
}
