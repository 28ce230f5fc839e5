//! Hostile providers that send too much or the wrong thing: a million
//! skills, huge descriptions, unsafe names and paths, entries sent ahead
//! past the caps, floods of refused entries and diagnostics, and resources
//! and skills past the size bounds.

use super::*;

#[test]
fn a_million_skills_are_refused() {
    let arena = arena(
        "many-skills",
        "snapshot",
        false,
        Limits {
            deadline: Duration::from_secs(20),
            memory_bytes: 512 * 1024 * 1024,
            ..limits()
        },
    );
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    assert_eq!(
        catalog.get("good").and_then(|s| s.description()),
        Some("Still fine")
    );
    let capped = catalog
        .skills
        .iter()
        .filter(|s| s.source == "hostile")
        .count();
    assert!(
        capped <= 10_000,
        "at most the cap of skills is kept: {capped}"
    );
    let diagnostic = catalog
        .diagnostics
        .iter()
        .find(|d| d.source.as_deref() == Some("hostile"))
        .expect("a diagnostic about the flood of skills");
    // Whichever limit stops it first: the memory cap, wasmtime's cap on
    // data crossing one call, or the host's cap on skills.
    assert!(
        diagnostic.message.contains("more than 10000 skills")
            || matches!(diagnostic.field.as_deref(), Some("memory" | "size")),
        "{diagnostic}"
    );
}
#[test]
fn a_hundred_mebibyte_description_is_refused_and_the_rest_kept() {
    let arena = arena(
        "huge-description",
        "snapshot",
        false,
        Limits {
            memory_bytes: 512 * 1024 * 1024,
            deadline: Duration::from_secs(20),
            ..limits()
        },
    );
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert!(catalog.get("huge").is_none());
    let d = catalog
        .diagnostics
        .iter()
        .find(|d| {
            d.message.contains("frontmatter JSON is 1048576") && d.message.contains("over the")
        })
        .unwrap_or_else(|| panic!("{:?}", catalog.diagnostics));
    assert_eq!(d.source.as_deref(), Some("hostile"));
}
#[test]
fn unsafe_names_and_escaping_paths_are_refused_one_by_one() {
    let arena = arena("bad-names", "snapshot", false, limits());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    assert!(
        catalog.complete,
        "refusing entries is not a failure of the provider"
    );
    let rejected: Vec<&Diagnostic> = catalog
        .diagnostics
        .iter()
        .filter(|d| d.message.contains("skill entry rejected"))
        .collect();
    assert_eq!(rejected.len(), 7, "{rejected:?}");
    assert!(
        rejected
            .iter()
            .any(|d| d.message.contains("path separator"))
    );
    assert!(
        rejected
            .iter()
            .any(|d| d.message.contains("outside the provider's grants"))
    );
    assert_eq!(
        catalog
            .skills
            .iter()
            .filter(|s| s.source == "hostile")
            .count(),
        1
    );
}
#[test]
fn entries_sent_ahead_past_the_cap_on_skills_are_dropped_and_refused_ones_named() {
    let arena = arena("emit-flood", "snapshot", false, patient());
    arena.honest();
    arena.arm();
    let catalog = arena.attacked();
    survived(&catalog, true);
    let ahead = catalog
        .skills
        .iter()
        .filter(|s| s.source == "hostile" && s.name().starts_with('e'))
        .count();
    // The first 10,000 sent are kept and a tenth of them refused, which
    // leaves room for the answer's own `steady` after them.
    assert_eq!(ahead, 9_000, "the cap of skills, less the refused");
    assert!(catalog.get("steady").is_some(), "the answer still counts");
    named(
        &catalog,
        "returned more than 10000 skills; 10000 were dropped",
    );
    assert_eq!(
        refused_entries(&catalog),
        1_000,
        "every refused entry kept is named"
    );
}
#[test]
fn entries_sent_ahead_outside_a_snapshot_are_dropped_and_noted() {
    for export in ["load", "on-change"] {
        let arena = arena("emit-flood", export, false, limits());
        arena.honest();
        arena.arm();
        if export == "load" {
            let err = arena.registry.load("steady");
            assert!(err.is_ok(), "{export}: the call itself goes on: {err:?}");
        } else {
            let flag = arena.hostile_root.path().join(FLAG);
            arena
                .hostile
                .on_change(&[(flag, ChangeKind::Created)])
                .unwrap();
        }
        let catalog = arena.attacked();
        survived(&catalog, true);
        let d = named(
            &catalog,
            "sent skill entries (emit-skills) outside a snapshot call: they were dropped",
        );
        assert_eq!(d.field.as_deref(), Some("capability"), "{export}");
        assert!(
            !catalog.skills.iter().any(|s| s.name().starts_with('e')),
            "{export}: nothing sent outside a snapshot is listed"
        );
    }
}
#[test]
fn a_flood_of_refused_entries_and_diagnostics_is_capped() {
    let arena = arena(
        "rejected-flood",
        "snapshot",
        false,
        Limits {
            memory_bytes: 256 * 1024 * 1024,
            ..patient()
        },
    );
    arena.honest();
    let before = Usage::now();
    arena.arm();
    for _ in 0..2 {
        let catalog = arena.attacked();
        assert!(catalog.complete, "refused entries are not a failure");
        survived(&catalog, true);
        assert_eq!(
            refused_entries(&catalog),
            1000,
            "the refused entries the host remembers"
        );
        named(
            &catalog,
            "29000 more entries were refused beyond the 1000 the host keeps diagnostics for",
        );
        let own = catalog
            .diagnostics
            .iter()
            .filter(|d| d.message.starts_with("hostile diagnostic "))
            .count();
        assert_eq!(own, 1000, "the provider's own diagnostics kept");
        named(
            &catalog,
            "19000 more diagnostics dropped, over the 1000 kept",
        );
        assert!(
            catalog.diagnostics.len() < 2100,
            "{}",
            catalog.diagnostics.len()
        );
    }
    before.settled_after(&arena);
}
#[test]
fn a_resource_over_sixteen_mebibytes_is_refused_and_one_at_the_limit_is_read() {
    {
        let at_limit = arena_with(
            "huge-resource",
            "read-resource",
            false,
            patient(),
            &[("size", "16777216")],
        );
        at_limit.honest();
        at_limit.arm();
        let bytes = at_limit.registry.read_resource("steady", "big.md").unwrap();
        assert_eq!(bytes.len(), 16 * 1024 * 1024);
    }
    let arena = arena_with(
        "huge-resource",
        "read-resource",
        false,
        patient(),
        &[("size", "16777217")],
    );
    arena.honest();
    let before = Usage::now();
    arena.arm();
    let error = arena
        .registry
        .read_resource("steady", "big.md")
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("provider hostile")
            && error.contains("16777217 bytes, over the limit of 16777216 per file"),
        "{error}"
    );
    let catalog = arena.attacked();
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    survived(&catalog, true);
    assert!(arena.registry.load("steady").is_ok());
    before.settled_after(&arena);
}
#[test]
fn more_than_512_files_or_16_mebibytes_in_one_skill_are_refused() {
    let listed = |count: &str, size: &str| {
        let arena = arena_with(
            "many-resources",
            "list-resources",
            false,
            patient(),
            &[("count", count), ("size", size)],
        );
        arena.honest();
        let before = Usage::now();
        arena.arm();
        let listed = arena
            .registry
            .list_resources("steady")
            .map(|list| list.len())
            .map_err(|e| e.to_string());
        survived(&arena.attacked(), true);
        before.settled_after(&arena);
        listed
    };
    assert_eq!(listed("512", "1"), Ok(512), "the limit itself is allowed");
    let error = listed("513", "1").unwrap_err();
    assert!(
        error.contains("provider hostile")
            && error.contains("listed 513 files, over the limit of 512 per skill"),
        "{error}"
    );
    let error = listed("2", "9000000").unwrap_err();
    assert!(
        error.contains("provider hostile")
            && error.contains("its files add up to 18000000 bytes, over the limit of 16777216"),
        "{error}"
    );
}
