use super::*;

fn key(s: &str) -> Key {
    Key::builder("test").part(s.as_bytes()).finish()
}

#[test]
fn a_stored_payload_comes_back_under_its_key_only() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    assert_eq!(s.get(&key("a")), None);
    s.put(&key("a"), b"answer");
    assert_eq!(s.get(&key("a")).as_deref(), Some(&b"answer"[..]));
    assert_eq!(s.get(&key("b")), None);
    assert!(std::fs::read_to_string(d.path().join(".gitignore"))
        .unwrap()
        .contains('*'));
}

#[test]
fn parts_are_delimited() {
    let ab_c = Key::builder("k").part(b"ab").part(b"c").finish();
    let a_bc = Key::builder("k").part(b"a").part(b"bc").finish();
    assert_ne!(ab_c, a_bc);
    assert_ne!(Key::builder("k").finish(), Key::builder("j").finish());
}

#[test]
fn a_damaged_or_foreign_entry_is_a_miss() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    s.put(&key("a"), b"answer one");
    let path = s.entry(&key("a"));
    let mut bytes = std::fs::read(&path).unwrap();
    // Torn: the payload cut short.
    std::fs::write(&path, &bytes[..bytes.len() - 3]).unwrap();
    assert_eq!(s.get(&key("a")), None);
    // Damaged: one payload byte changed.
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, &bytes).unwrap();
    assert_eq!(s.get(&key("a")), None);
    // Foreign: another key's entry under this name.
    s.put(&key("b"), b"answer two");
    std::fs::copy(s.entry(&key("b")), &path).unwrap();
    assert_eq!(s.get(&key("a")), None);
}

#[test]
fn concurrent_writers_leave_whole_entries() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    std::thread::scope(|sc| {
        for t in 0..4 {
            let s = s.clone();
            sc.spawn(move || {
                for i in 0..200 {
                    let payload = format!("{}-{t}", i % 10).repeat(1000);
                    s.put(&key(&(i % 10).to_string()), payload.as_bytes());
                    if let Some(got) = s.get(&key(&((i + 3) % 10).to_string())) {
                        let text = String::from_utf8(got).unwrap();
                        assert!(text.starts_with(&format!("{}-", (i + 3) % 10)), "a torn entry");
                    }
                }
            });
        }
    });
    for i in 0..10 {
        assert!(s.get(&key(&i.to_string())).is_some());
    }
}

#[test]
fn pruning_drops_the_least_recently_used_first() {
    let d = tempfile::tempdir().unwrap();
    let s = Store::open(d.path()).unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(1000);
    for i in 0..10 {
        s.put(&key(&i.to_string()), &[b'x'; 1000]);
        let f = std::fs::File::options()
            .append(true)
            .open(s.entry(&key(&i.to_string())))
            .unwrap();
        f.set_modified(old + std::time::Duration::from_secs(i)).unwrap();
    }
    // A store that only read (a warm run) leaves the directory alone.
    let reader = Store::open(d.path()).unwrap();
    assert!(reader.get(&key("5")).is_some());
    reader.prune(0);
    assert!((0..10).all(|i| s.entry(&key(&i.to_string())).exists()));
    // Entry 0 is used: it becomes the most recent.
    assert!(s.get(&key("0")).is_some());
    s.prune(6000);
    assert!(s.get(&key("0")).is_some(), "the entry just used is kept");
    assert_eq!(s.get(&key("1")), None, "the oldest go first");
    assert!(s.get(&key("9")).is_some());
    let kept = (0..10).filter(|i| s.entry(&key(&i.to_string())).exists()).count();
    assert!(kept < 10 && kept * 1100 <= 6000, "{kept} kept");
}
