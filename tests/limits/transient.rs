//! A transient read failure keeps the last complete view: only complete
//! observations replace what the catalog shows. The failure is real: the process runs out of file descriptors, as
//! under load. The test holds the binary's one lock, and nothing but tests
//! that hold it runs in this binary, so lowering the limit disturbs no other
//! test.

use skillhost_tests::{runtime, skill_md, tree, write};

/// The lowest descriptor number free now: with the limit there, no new
/// file can be opened.
fn lowest_free_descriptor() -> u64 {
    // SAFETY: dup of stdin returns the lowest free number, closed at once.
    let fd = unsafe { libc::dup(0) };
    assert!(fd >= 0);
    // SAFETY: closing the descriptor just created.
    unsafe { libc::close(fd) };
    fd as u64
}

#[test]
fn a_transient_read_error_keeps_the_last_complete_view_until_reads_work_again() {
    let _alone = crate::alone();
    let dir = tree(&[
        ("a/SKILL.md", skill_md("a", "first").as_bytes()),
        ("b/SKILL.md", skill_md("b", "first").as_bytes()),
    ]);
    let registry = runtime().registry_for_roots(&[dir.path()]).unwrap();
    let before = registry.snapshot();
    assert!(before.complete);
    write(dir.path(), "b/SKILL.md", skill_md("b", "second").as_bytes());
    let provider = registry.providers()[0].clone();
    provider.invalidate();

    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given.
    assert_eq!(
        unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) },
        0
    );
    let starved = libc::rlimit {
        rlim_cur: lowest_free_descriptor(),
        rlim_max: limit.rlim_max,
    };
    // SAFETY: lowering the soft limit of this process; restored below.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &starved) }, 0);
    let during = registry.snapshot();
    // SAFETY: restoring the limit read above.
    assert_eq!(unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) }, 0);

    assert!(!during.complete, "reads failed: the view is incomplete");
    assert_eq!(
        during.skills, before.skills,
        "the last complete view is kept"
    );
    assert!(
        during
            .diagnostics
            .iter()
            .any(|d| d.message.contains("cannot read")),
        "{:?}",
        during.diagnostics
    );
    let after = registry.snapshot();
    assert!(after.complete, "{:?}", after.diagnostics);
    assert_eq!(after.get("b").and_then(|s| s.description()), Some("second"));
}
