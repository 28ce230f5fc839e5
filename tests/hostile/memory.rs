//! Hostile providers that spend memory and descriptors: memory bombs and
//! what a refilled instance sees, deep recursion, reads larger than the
//! guest can receive, and descriptors past the bound.

use super::*;

#[test]
fn a_memory_bomb_hits_the_cap() {
    let arena = arena("memory", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(fault_kind(&catalog), Some("memory"));
    named(&catalog, "memory");
}
#[test]
fn a_memory_a_provider_filled_comes_back_wiped_to_the_next_instance() {
    let _serial = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let runtime = runtime();
    let root = tree(&[("inside.txt", b"x")]);
    // 20 MiB of ones: past the 16 MiB a kept memory holds in RAM, so both
    // the part zeroed in place and the part handed back are read again.
    let size = 20usize << 20;
    let run = |attack: &str| {
        let provider = provider_of(
            &runtime,
            "hostile",
            runtime.load_component(HOSTILE_GUEST).unwrap(),
            vec![root.path().to_path_buf()],
            &[("attack", attack), ("size", &size.to_string())],
            patient(),
        );
        let registry = Registry::new();
        registry.add(provider).unwrap();
        registry.snapshot()
    };
    let before = runtime.engine().memories_reused();
    let filled = run("leak");
    assert!(filled.get("steady").is_some(), "{:?}", filled.diagnostics);
    let peeked = run("peek");
    if cfg!(target_os = "linux") {
        assert!(
            runtime.engine().memories_reused() > before,
            "the second instance ran in the memory the first one left"
        );
    }
    assert_eq!(
        noted(&peeked, "peek:"),
        format!("peek: 0 of {size} grown bytes not zero")
    );
}
#[test]
fn deep_recursion_overflows_only_the_guests_stack() {
    let arena = arena("recursion", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(fault_kind(&catalog), Some("stack"));
}
/// A guest capped at 32 MiB names one 8 MiB file 64 times in one
/// `read-files` call: the host reads only what the guest could still take
/// (its cap less what its memory holds), and the rest answers `transient`,
/// so the host never holds 512 MiB for an answer the guest could not lower.
#[test]
fn a_read_naming_more_than_the_guest_can_receive_is_cut_at_its_memory() {
    const BIG: usize = 8 * 1024 * 1024;
    let capped = Limits {
        memory_bytes: 32 * 1024 * 1024,
        ..patient()
    };
    let size = BIG.to_string();
    let arena = arena_with(
        "read-amplify",
        "snapshot",
        false,
        capped,
        &[("size", &size), ("count", "64")],
    );
    write(arena.hostile_root.path(), "big.bin", &vec![7u8; BIG]);
    arena.honest();
    arena.arm();
    let catalog = {
        let _guard = watchdog("a read naming one large file 64 times");
        arena.attacked()
    };
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    let seen = noted(&catalog, "read-amplify: ");
    let counts: Vec<usize> = seen
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    let [whole, transient, bytes] = counts[..] else {
        panic!("unexpected note {seen:?}");
    };
    assert!(
        (1..=3).contains(&whole),
        "only what 32 MiB can hold comes whole: {seen}"
    );
    assert_eq!(whole + transient, 64, "the rest answers transient: {seen}");
    assert_eq!(bytes, whole * BIG, "{seen}");
}
#[test]
fn descriptors_past_the_bound_stop_the_provider_and_are_all_closed() {
    let arena = arena("descriptors", "snapshot", false, patient());
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert_eq!(
        fault_kind(&catalog),
        Some("limit"),
        "{:?}",
        catalog.diagnostics
    );
    named(&catalog, "held more than 1024 open resources");
    // Its instance went with the fault, and every descriptor it held.
    before.settled_after(&arena);
    // Once it behaves, it is started again and answers.
    std::fs::remove_file(arena.hostile_root.path().join(FLAG)).unwrap();
    let until = Instant::now() + Duration::from_secs(30);
    let mut catalog = arena.attacked();
    while !catalog.complete && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
        catalog = arena.attacked();
    }
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
}
