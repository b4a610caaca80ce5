//! The pre-commit hooks of `.pre-commit-hooks.yaml`, run by the real `pre-commit` from PyPI on
//! a temporary git repository holding a racy kernel, an unfixable one and a suppressed false
//! alarm. The hooks are taken from the manifest with
//! their entry pointed at the binary under test (`language: system`), so the test exercises the
//! manifest's file patterns and arguments without pre-commit rebuilding autosync with cargo.
//! Needs PyPI; slow, so ignored by default and run explicitly by `.ci/run`.

use crate::common::{self, venv};
use std::path::Path;
use std::process::{Command, Output};

fn git(repo: &Path, args: &[&str]) {
    let ok = Command::new("git").current_dir(repo).args(args).status().unwrap();
    assert!(ok.success(), "git {args:?}");
}

/// A local pre-commit config with the manifest's hooks, running the binary under test.
fn local_config() -> String {
    let manifest: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&std::fs::read_to_string(".pre-commit-hooks.yaml").unwrap()).unwrap();
    let exe = env!("CARGO_BIN_EXE_autosync");
    let mut hooks = Vec::new();
    for h in manifest.as_sequence().expect("a list of hooks") {
        let mut h = h.clone();
        let entry = h["entry"].as_str().unwrap().to_string();
        let rest = entry.strip_prefix("autosync").expect("entries run autosync");
        h["entry"] = format!("{exe}{rest}").into();
        h["language"] = "system".into();
        hooks.push(h);
    }
    serde_yaml_ng::to_string(&serde_json::json!({
        "repos": [{ "repo": "local", "hooks": hooks }]
    }))
    .unwrap()
}

fn pre_commit(bin: &Path, repo: &Path, home: &Path, args: &[&str]) -> Output {
    Command::new(bin.join("pre-commit"))
        .current_dir(repo)
        .env("PRE_COMMIT_HOME", home)
        .env("PRE_COMMIT_COLOR", "never")
        .args(args)
        .output()
        .unwrap()
}

#[test]
#[ignore = "installs pre-commit from PyPI; run by .ci/run"]
fn autosync_fix_hook_rewrites_a_racy_kernel() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = venv::venv_with(tmp.path(), &["pre-commit"]);
    let repo = tmp.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "-q"]);
    git(&repo, &["config", "user.email", "ci@example.invalid"]);
    git(&repo, &["config", "user.name", "ci"]);
    std::fs::copy("corpus/micro/straight_line.cu", repo.join("k.cu")).unwrap();
    std::fs::copy("corpus/racy/same_statement.cu", repo.join("bad.cu")).unwrap();
    // A race the author judged a false alarm, suppressed on the line of one of its accesses.
    let alarm = std::fs::read_to_string("corpus/micro/straight_line.cu")
        .unwrap()
        .replace("a[t] = x;", "a[t] = x; // autosync: ignore[race] reviewed: benign");
    std::fs::write(repo.join("alarm.cu"), &alarm).unwrap();
    std::fs::write(repo.join("notes.txt"), "not CUDA\n").unwrap();
    std::fs::write(repo.join(".pre-commit-config.yaml"), local_config()).unwrap();
    git(&repo, &["add", "."]);
    let home = tmp.path().join("pre-commit-home");
    let before = std::fs::read_to_string(repo.join("k.cu")).unwrap();

    // The check hook fails on the racy kernel and changes nothing.
    let out = pre_commit(
        &bin,
        &repo,
        &home,
        &["run", "autosync-check", "--files", "k.cu", "notes.txt"],
    );
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stdout).contains("race (WAR) on `a`"));
    assert_eq!(std::fs::read_to_string(repo.join("k.cu")).unwrap(), before);

    // The fix hook rewrites it; pre-commit fails the hook because a file changed.
    let out = pre_commit(
        &bin,
        &repo,
        &home,
        &["run", "autosync-fix", "--files", "k.cu", "notes.txt"],
    );
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success(), "{log}");
    assert!(log.contains("files were modified by this hook"), "{log}");
    let after = std::fs::read_to_string(repo.join("k.cu")).unwrap();
    assert_ne!(after, before);
    assert_eq!(after.matches("__syncthreads();").count(), 1, "{after}");
    let check = common::bin().arg("check").arg(repo.join("k.cu")).output().unwrap();
    assert_eq!(
        check.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&check.stdout)
    );

    // Run again: nothing left to do, both hooks pass.
    let out = pre_commit(&bin, &repo, &home, &["run", "autosync-fix", "--files", "k.cu"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    let out = pre_commit(&bin, &repo, &home, &["run", "autosync-check", "--files", "k.cu"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));

    // The suppressed false alarm passes both hooks and is left alone; without the comment
    // the check hook fails on it.
    for hook in ["autosync-check", "autosync-fix"] {
        let out = pre_commit(&bin, &repo, &home, &["run", hook, "--files", "alarm.cu"]);
        assert!(out.status.success(), "{hook}: {}", String::from_utf8_lossy(&out.stdout));
    }
    assert_eq!(std::fs::read_to_string(repo.join("alarm.cu")).unwrap(), alarm);
    std::fs::write(
        repo.join("alarm.cu"),
        alarm.replace(" // autosync: ignore[race] reviewed: benign", ""),
    )
    .unwrap();
    let out = pre_commit(&bin, &repo, &home, &["run", "autosync-check", "--files", "alarm.cu"]);
    assert!(!out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));

    // An unfixable kernel fails the fix hook with exit 3 and is left alone.
    let bad = std::fs::read_to_string(repo.join("bad.cu")).unwrap();
    let out = pre_commit(&bin, &repo, &home, &["run", "autosync-fix", "--files", "bad.cu"]);
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(!out.status.success() && log.contains("exit code: 3"), "{log}");
    assert_eq!(std::fs::read_to_string(repo.join("bad.cu")).unwrap(), bad);
}
