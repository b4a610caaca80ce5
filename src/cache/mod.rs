//! The result cache: answers autosync computed before, on disk, found by a 256-bit hash of
//! everything the answer depends on ([`Key`]). What goes into a key is the caller's business
//! (`workflow::cached`); this module only stores bytes under keys.
//!
//! Safe under concurrent runs: an entry is written to a temporary file in its shard and renamed
//! into place, so a reader sees a whole entry or none; each entry carries its key and a hash of
//! its payload, so a foreign, torn or damaged file reads as a miss, never as an answer.
//! Bounded: [`Store::prune`] drops the least recently used entries (a hit refreshes an entry's
//! modification time) once the store outgrows its limit.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Entries live under this subdirectory; a change of the entry format changes it.
const FORMAT: &str = "v1";
/// The first line of every entry.
const MAGIC: &[u8] = b"autosync-cache-entry 1\n";
/// The size the store is pruned to when it outgrows its limit, as a fraction of the limit.
const PRUNE_TO: f64 = 0.75;
/// The default limit on the store's size.
pub const DEFAULT_MAX_BYTES: u64 = 512 << 20;

/// The name of the directory the cache lives in, under the project's root.
pub const DIR_NAME: &str = ".autosync_cache";

/// A hash of everything an answer depends on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

/// Builds a [`Key`] from parts; each part is length-prefixed, so `("ab", "c")` and `("a",
/// "bc")` differ.
pub struct KeyBuilder(blake3::Hasher);

impl Key {
    /// A builder for keys of one kind of answer (`kind` separates kinds that hash alike).
    pub fn builder(kind: &str) -> KeyBuilder {
        let mut b = KeyBuilder(blake3::Hasher::new());
        b.part(kind.as_bytes());
        b
    }

    /// The key in hexadecimal.
    pub fn hex(&self) -> String {
        self.0.iter().map(|b| format!("{b:02x}")).collect()
    }
}

impl KeyBuilder {
    /// Adds one part.
    pub fn part(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.update(&(bytes.len() as u64).to_le_bytes());
        self.0.update(bytes);
        self
    }

    /// Adds a value by its JSON form (`None` when it cannot be serialized: no key, no caching).
    pub fn json<T: serde::Serialize + ?Sized>(&mut self, v: &T) -> Option<&mut Self> {
        let text = serde_json::to_vec(v).ok()?;
        Some(self.part(&text))
    }

    /// The key.
    pub fn finish(&self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

/// A cache directory.
#[derive(Clone, Debug)]
pub struct Store {
    dir: PathBuf,
    /// Whether an entry was written through this store (or a clone): only then can it have
    /// outgrown its limit.
    wrote: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Store {
    /// Opens (creating if needed) the store at `dir`. The directory gets a `.gitignore` that
    /// ignores it and a `CACHEDIR.TAG`, so neither git nor backups pick it up.
    pub fn open(dir: &Path) -> std::io::Result<Store> {
        std::fs::create_dir_all(dir.join(FORMAT))?;
        let mark = |name: &str, text: &str| {
            let p = dir.join(name);
            if !p.exists() {
                // Concurrent runs write the same text; a lost race leaves a whole file.
                let _ = write_atomic(&p, text.as_bytes());
            }
        };
        mark(".gitignore", "# Written by autosync: its result cache.\n*\n");
        mark(
            "CACHEDIR.TAG",
            "Signature: 8a477f597d28d172789f06886806bc55\n# autosync's result cache: see https://bford.info/cachedir/\n",
        );
        Ok(Store {
            dir: dir.to_path_buf(),
            wrote: Default::default(),
        })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn entry(&self, key: &Key) -> PathBuf {
        let hex = key.hex();
        self.dir.join(FORMAT).join(&hex[..2]).join(&hex[2..])
    }

    /// The payload stored under `key`, if there is a whole one. A hit refreshes the entry's
    /// modification time (the pruning order).
    pub fn get(&self, key: &Key) -> Option<Vec<u8>> {
        let path = self.entry(key);
        let bytes = std::fs::read(&path).ok()?;
        let payload = parse_entry(&bytes, key)?;
        if let Ok(f) = std::fs::File::options().append(true).open(&path) {
            let _ = f.set_modified(std::time::SystemTime::now());
        }
        Some(payload.to_vec())
    }

    /// Stores `payload` under `key` (a failure to write is not an error: the next run misses).
    pub fn put(&self, key: &Key, payload: &[u8]) {
        let path = self.entry(key);
        let Some(shard) = path.parent() else { return };
        if std::fs::create_dir_all(shard).is_err() {
            return;
        }
        let mut bytes = Vec::with_capacity(payload.len() + 160);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(format!("{}\n{}\n", key.hex(), payload_hash(payload)).as_bytes());
        bytes.extend_from_slice(payload);
        if write_atomic(&path, &bytes).is_ok() {
            self.wrote.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Removes the least recently used entries, down to [`PRUNE_TO`] of `max_bytes`, when the
    /// store holds more than `max_bytes`. Leftover temporary files of killed runs go too. A
    /// run that only read (a warm one) does not walk the directory.
    pub fn prune(&self, max_bytes: u64) {
        if !self.wrote.load(std::sync::atomic::Ordering::Relaxed) {
            return;
        }
        let mut entries = Vec::new();
        let mut total = 0u64;
        let Ok(shards) = std::fs::read_dir(self.dir.join(FORMAT)) else {
            return;
        };
        for shard in shards.flatten() {
            let Ok(files) = std::fs::read_dir(shard.path()) else {
                continue;
            };
            for f in files.flatten() {
                let Ok(m) = f.metadata() else { continue };
                let stale_tmp = f.file_name().to_string_lossy().starts_with(".tmp")
                    && m.modified()
                        .is_ok_and(|t| t.elapsed().is_ok_and(|e| e.as_secs() > 3600));
                if stale_tmp {
                    let _ = std::fs::remove_file(f.path());
                    continue;
                }
                total += m.len();
                entries.push((m.modified().unwrap_or(std::time::UNIX_EPOCH), m.len(), f.path()));
            }
        }
        if total <= max_bytes {
            return;
        }
        entries.sort();
        let goal = (max_bytes as f64 * PRUNE_TO) as u64;
        for (_, len, path) in entries {
            if total <= goal {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
            }
        }
    }
}

fn payload_hash(payload: &[u8]) -> String {
    blake3::hash(payload).to_hex().to_string()
}

/// The payload of an entry written by [`Store::put`] under `key`, if the entry is whole.
fn parse_entry<'a>(bytes: &'a [u8], key: &Key) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(MAGIC)?;
    let (stored_key, rest) = split_line(rest)?;
    let (hash, payload) = split_line(rest)?;
    (stored_key == key.hex().as_bytes() && hash == payload_hash(payload).as_bytes()).then_some(payload)
}

fn split_line(b: &[u8]) -> Option<(&[u8], &[u8])> {
    let n = memchr::memchr(b'\n', b)?;
    Some((&b[..n], &b[n + 1..]))
}

/// Writes `bytes` to a temporary file beside `path` and renames it into place.
fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map(drop).map_err(|e| e.error)
}

#[cfg(test)]
mod tests;
