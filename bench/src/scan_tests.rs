use super::*;
use skillhost::sandbox::{MAX_WORKERS, Workers};
use std::path::Path;

fn write_file(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_native_baseline_finds_what_the_provider_finds() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::canonicalize(dir.path()).unwrap();
    let root = base.join("skills");
    write_file(&root.join("bundle/SKILL.md"), "---\ndescription: b\n---\n");
    write_file(&root.join("lower/skill.md"), "---\ndescription: l\n---\n");
    write_file(&root.join("flat.md"), "---\ndescription: f\n---\n");
    write_file(&root.join("README.md"), "# not a skill\n");
    write_file(&root.join("SKILL.md"), "---\ndescription: misplaced\n---\n");
    write_file(&root.join(".hidden/SKILL.md"), "---\ndescription: h\n---\n");
    write_file(&root.join("empty/notes.md"), "no document here\n");
    write_file(
        &root.join("broken/SKILL.md"),
        "---\ndescription: [unclosed\n---\n",
    );
    write_file(
        &base.join("elsewhere/SKILL.md"),
        "---\ndescription: e\n---\n",
    );
    std::os::unix::fs::symlink(base.join("elsewhere"), root.join("linked")).unwrap();
    // Relative: the sandbox follows a link only inside its mount.
    std::os::unix::fs::symlink("flat.md", root.join("alias.md")).unwrap();
    // Absolute: outside the mount, refused by both.
    std::os::unix::fs::symlink(root.join("flat.md"), root.join("absolute.md")).unwrap();
    std::os::unix::fs::symlink(base.join("nowhere"), root.join("dangling")).unwrap();

    // What the catalog holds of each skill, provider id aside.
    let records = |catalog: &Catalog| {
        let mut records: Vec<_> = catalog
            .skills
            .iter()
            .map(|s| {
                let json = s.json.as_deref().map(str::to_string);
                (s.name().to_string(), s.path.clone(), s.base.clone(), json)
            })
            .collect();
        records.sort();
        records
    };
    let native = records(&native_scan(
        &mut HostReader::for_roots(std::slice::from_ref(&root), &Workers::new(MAX_WORKERS)),
        &root,
    ));
    let names: Vec<&str> = native.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["alias", "bundle", "flat", "linked", "lower"]);

    let runtime = skillhost_tests::runtime();
    let registry = Registry::new();
    registry
        .add(runtime.local_provider(&root).unwrap())
        .unwrap();
    // The same records: the same names, documents, base folders and
    // frontmatter JSON as the boundary makes of the provider's entries.
    // Except where a link leads out of the root: the grants show that
    // skill at its target, the baseline at the link (the bench's tree
    // has no links, so neither pays for resolving one).
    let provided = records(&registry.snapshot());
    assert_eq!(native.len(), provided.len());
    for (native, provided) in native.iter().zip(&provided) {
        if native.0 == "linked" {
            assert_eq!((&native.0, &native.3), (&provided.0, &provided.3));
            assert_eq!(provided.1, Location::Path(base.join("elsewhere/SKILL.md")));
        } else {
            assert_eq!(native, provided);
        }
    }
}

#[test]
fn the_native_baseline_reads_many_documents_ahead_in_batches_and_finds_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("skills");
    // Past the read-ahead threshold, and a last batch that is not full.
    let count = READ_AHEAD_FROM + BATCH + 3;
    generate_tree(&root, count).unwrap();
    let mut reader = HostReader::for_roots(std::slice::from_ref(&root), &Workers::new(MAX_WORKERS));
    let names: Vec<String> = native_scan(&mut reader, &root)
        .skills
        .iter()
        .map(|s| s.name().to_string())
        .collect();
    let expected: Vec<String> = (0..count).map(|i| format!("skill-{i:05}")).collect();
    assert_eq!(names, expected);
    // The reader is ready for the next scan: nothing of the last call is left.
    assert_eq!(native_scan(&mut reader, &root).skills.len(), count);
}

#[test]
fn every_ratio_says_what_it_compares_and_warm_is_against_a_full_native_rescan() {
    let report = BenchReport {
        skills: 10,
        rounds: 1,
        cold_sandboxed: vec![Duration::from_millis(12)],
        cold_native: vec![Duration::from_millis(10)],
        warm_sandboxed: vec![Duration::from_millis(1)],
        rescan_native: vec![Duration::from_millis(20)],
        rescan_sandboxed: vec![Duration::from_millis(5)],
        json_to_fields: vec![Duration::from_millis(3)],
        without: vec![("read_ahead", vec![Duration::from_millis(18)])],
    };
    let json = report.to_json();
    let read_ahead = &json["without"]["speedups"][0];
    assert_eq!(read_ahead["speedup"], "read_ahead");
    let ratio = read_ahead["ratio_to_all_on"].as_f64().unwrap_or_default();
    assert!((ratio - 1.5).abs() < 1e-9, "{ratio}");
    assert!(
        json["without"]["compares"]
            .as_str()
            .is_some_and(|c| c.contains("one of the host's speedups switched off"))
    );
    assert_eq!(json["cold"]["ratio"], 1.2);
    assert_eq!(json["json_to_fields"]["share_of_cold"], 0.25);
    assert_eq!(json["warm"]["ratio"], 0.05);
    assert_eq!(json["warm"]["native_ms"], 20.0);
    assert_eq!(json["rescan"]["ratio"], 0.25);
    assert!(
        json["baseline"]
            .as_str()
            .is_some_and(|b| b.contains("batches of 64"))
    );
    for key in ["cold", "warm", "rescan"] {
        assert!(
            json[key]["compares"]
                .as_str()
                .is_some_and(|c| !c.is_empty()),
            "{key}"
        );
    }
    assert!(
        json["warm"]["compares"]
            .as_str()
            .is_some_and(|c| c.contains("one changed file") && c.contains("full native rescan"))
    );
    let text = report.render();
    assert!(
        text.contains("host JSON-to-fields step     3.000 ms for 10 skills (25.0% of the cold"),
        "{text}"
    );
    assert!(
        text.contains(
            "one changed file (event, re-read, delta snapshot) against a full native rescan"
        ),
        "{text}"
    );
    assert!(text.contains("native full rescan"), "{text}");
    assert!(
        text.contains("cold without read_ahead         18.000 ms   (1.50 x the cold sandboxed snapshot with all on)"),
        "{text}"
    );
    assert!(
        text.lines()
            .last()
            .is_some_and(|l| l == "ratio sandboxed/native: cold 1.20 warm 0.05"),
        "{text}"
    );
}
