//! Bad skill files, one test each: the bad skill is skipped (or loaded, when
//! the input is merely messy) with a diagnostic naming the file and the
//! reason, every other skill loads, and the observation stays complete.

use skillhost::{Catalog, Diagnostic, Severity};
use skillhost_tests::{runtime, skill_md, tree, write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A root holding a good skill plus `files`, and its catalog.
fn catalog_with(files: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf, Arc<Catalog>) {
    let good = skill_md("good", "A well-formed skill");
    let mut all: Vec<(&str, &[u8])> = vec![("good/SKILL.md", good.as_bytes())];
    all.extend_from_slice(files);
    let dir = tree(&all);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let catalog = runtime().registry_for_roots(&[&root]).unwrap().snapshot();
    assert!(
        catalog.get("good").is_some(),
        "the good skill still loads: {catalog:?}"
    );
    (dir, root, catalog)
}

fn diagnostic_for<'c>(catalog: &'c Catalog, path: &Path) -> &'c Diagnostic {
    catalog
        .diagnostics
        .iter()
        .find(|d| Path::new(&d.path) == path)
        .unwrap_or_else(|| {
            panic!(
                "no diagnostic for {}: {:?}",
                path.display(),
                catalog.diagnostics
            )
        })
}

/// Asserts that the skill at `file` was skipped with an error mentioning `reason`.
fn skipped(files: &[(&str, &[u8])], file: &str, reason: &str) -> Diagnostic {
    let (_dir, root, catalog) = catalog_with(files);
    assert!(catalog.complete, "a broken file is not a transient failure");
    assert_eq!(
        catalog.skills.len(),
        1,
        "only the good skill: {:?}",
        catalog.skills
    );
    let d = diagnostic_for(&catalog, &root.join(file)).clone();
    assert_eq!(d.severity, Severity::Error);
    assert!(d.message.contains(reason), "{d}");
    d
}

#[test]
fn unclosed_frontmatter_is_skipped_and_reported_on_line_one() {
    let d = skipped(
        &[(
            "open/SKILL.md",
            b"---\nname: open\ndescription: never closed\n# body\n",
        )],
        "open/SKILL.md",
        "never closed",
    );
    assert_eq!(d.line, Some(1));
}

#[test]
fn invalid_yaml_is_skipped_and_reported_with_its_line() {
    let d = skipped(
        &[(
            "broken/SKILL.md",
            b"---\nname: broken\ndescription: [unterminated\nlicense: MIT\n---\nbody\n",
        )],
        "broken/SKILL.md",
        "invalid YAML",
    );
    assert!(matches!(d.line, Some(3..=5)), "{d:?}");
}

#[test]
fn non_utf8_file_is_skipped_and_reported() {
    let d = skipped(
        &[(
            "latin1/SKILL.md",
            b"---\nname: latin1\ndescription: caf\xe9 au lait\n---\nbody\n",
        )],
        "latin1/SKILL.md",
        "not valid UTF-8",
    );
    assert_eq!(d.line, Some(3));
}

#[test]
fn file_over_one_mebibyte_is_skipped_and_reported() {
    let mut big = skill_md("big", "Too large").into_bytes();
    big.extend(std::iter::repeat_n(b'x', 1024 * 1024));
    skipped(
        &[("big/SKILL.md", &big)],
        "big/SKILL.md",
        "larger than the 1 MiB limit",
    );
}

#[test]
fn traversal_name_is_refused() {
    let d = skipped(
        &[(
            "evil/SKILL.md",
            b"---\nname: ../../x\ndescription: escapes\n---\n",
        )],
        "evil/SKILL.md",
        "path separator",
    );
    assert_eq!(d.field.as_deref(), Some("name"));
}

#[test]
fn name_with_a_newline_is_refused() {
    let d = skipped(
        &[(
            "multi/SKILL.md",
            b"---\nname: \"first\\nsecond\"\ndescription: two lines\n---\n",
        )],
        "multi/SKILL.md",
        "control character",
    );
    assert_eq!(d.field.as_deref(), Some("name"));
}

#[test]
fn crlf_file_loads_with_clean_fields_and_body() {
    let (dir, _root, catalog) = catalog_with(&[(
        "windows/SKILL.md",
        b"---\r\nname: windows\r\ndescription: Written on Windows\r\nallowed-tools: Read, Write\r\n---\r\n# Title\r\nBody\r\n",
    )]);
    let skill = catalog.get("windows").expect("the CRLF skill loads");
    assert_eq!(skill.description(), Some("Written on Windows"));
    assert_eq!(skill.frontmatter.allowed_tools, ["Read", "Write"]);
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
    let doc = runtime()
        .registry_for_roots(&[dir.path().to_path_buf()])
        .unwrap()
        .load("windows")
        .unwrap();
    assert_eq!(doc.body, "# Title\r\nBody\r\n");
}

#[test]
fn utf8_bom_file_loads() {
    let (_dir, _root, catalog) = catalog_with(&[(
        "bom/SKILL.md",
        b"\xEF\xBB\xBF---\nname: bom\ndescription: Starts with a byte-order mark\n---\nbody\n",
    )]);
    assert_eq!(
        catalog.get("bom").and_then(|s| s.description()),
        Some("Starts with a byte-order mark")
    );
}

#[test]
fn folded_block_scalar_description_loads_as_one_line() {
    let (_dir, _root, catalog) = catalog_with(&[(
        "folded/SKILL.md",
        b"---\nname: folded\ndescription: >\n  Use when the text\n  is folded by YAML.\n---\nbody\n",
    )]);
    assert_eq!(
        catalog.get("folded").and_then(|s| s.description()),
        Some("Use when the text is folded by YAML.")
    );
}

#[test]
fn literal_block_scalar_description_keeps_its_lines() {
    let (_dir, _root, catalog) = catalog_with(&[(
        "literal/SKILL.md",
        "---\nname: literal\ndescription: |\n  Première ligne\n  second line\n---\nbody\n"
            .as_bytes(),
    )]);
    assert_eq!(
        catalog.get("literal").and_then(|s| s.description()),
        Some("Première ligne\nsecond line")
    );
}

#[test]
fn readme_without_frontmatter_in_a_root_is_not_a_skill() {
    let (_dir, _root, catalog) = catalog_with(&[
        ("README.md", b"# My skills\n\nNotes about this folder.\n"),
        (
            "flat.md",
            b"---\ndescription: A flat skill\n---\nflat body\n",
        ),
    ]);
    assert!(catalog.get("README").is_none());
    assert_eq!(
        catalog.get("flat").and_then(|s| s.description()),
        Some("A flat skill")
    );
    assert!(catalog.diagnostics.is_empty(), "{:?}", catalog.diagnostics);
}

#[test]
fn nested_skill_md_inside_a_bundle_is_never_scanned() {
    let outer = skill_md("outer", "The bundle");
    let inner = skill_md("inner", "Deep inside the bundle");
    let (_dir, _root, catalog) = catalog_with(&[
        ("outer/SKILL.md", outer.as_bytes()),
        ("outer/examples/inner/SKILL.md", inner.as_bytes()),
        ("outer/references/SKILL.md", inner.as_bytes()),
    ]);
    assert!(catalog.get("outer").is_some());
    assert!(catalog.get("inner").is_none());
    assert_eq!(catalog.skills.len(), 2);
}

#[test]
fn symlink_loop_does_not_hang_and_is_reported() {
    let good = skill_md("good", "A well-formed skill");
    let dir = tree(&[("good/SKILL.md", good.as_bytes())]);
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::os::unix::fs::symlink(root.join("loop-a"), root.join("loop-b")).unwrap();
    std::os::unix::fs::symlink(root.join("loop-b"), root.join("loop-a")).unwrap();
    std::os::unix::fs::symlink(&root, root.join("good").join("self")).unwrap();
    let catalog = runtime().registry_for_roots(&[&root]).unwrap().snapshot();
    assert!(catalog.complete);
    assert_eq!(catalog.skills.len(), 1);
    let d = diagnostic_for(&catalog, &root.join("loop-a"));
    assert!(d.message.contains("symlink"), "{d}");
}

#[test]
fn missing_description_warns_and_the_skill_still_loads() {
    let (_dir, root, catalog) =
        catalog_with(&[("bare/SKILL.md", b"---\nlicense: MIT\n---\nbody\n")]);
    assert!(catalog.get("bare").is_some(), "name defaults to the folder");
    let d = diagnostic_for(&catalog, &root.join("bare/SKILL.md"));
    assert_eq!(d.severity, Severity::Warning);
    assert_eq!(d.field.as_deref(), Some("description"));
}

#[test]
fn unquoted_globs_and_colons_from_real_files_are_accepted() {
    let (_dir, _root, catalog) = catalog_with(&[(
        "globs/SKILL.md",
        b"---\nname: globs\ndescription: Use when: editing TypeScript\npaths: src/**/*.{ts,tsx}\n---\n",
    )]);
    let skill = catalog.get("globs").expect("loads");
    assert_eq!(skill.description(), Some("Use when: editing TypeScript"));
    assert_eq!(skill.frontmatter.paths, ["src/**/*.ts", "src/**/*.tsx"]);
}

#[test]
fn a_skill_md_replaced_by_a_folder_is_reported_without_hiding_others() {
    let dir = tree(&[("good/SKILL.md", skill_md("good", "fine").as_bytes())]);
    std::fs::create_dir_all(dir.path().join("odd/SKILL.md")).unwrap();
    write(dir.path(), "odd/SKILL.md/x", b"not a skill");
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let catalog = runtime().registry_for_roots(&[&root]).unwrap().snapshot();
    assert!(catalog.get("good").is_some());
    let d = diagnostic_for(&catalog, &root.join("odd/SKILL.md"));
    assert!(d.message.contains("not a regular file"), "{d}");
}

/// A root of `count` generated skills, three of them bad, and its checks.
fn large_root_reports_each_bad_file_and_loads_the_rest(count: usize) {
    let (middle, last) = (count / 2, count - 1);
    let mut files: Vec<(String, Vec<u8>)> = (0..count)
        .map(|i| {
            let name = format!("skill-{i:03}");
            let text = skill_md(&name, &format!("Generated skill {i}"));
            (format!("{name}/SKILL.md"), text.into_bytes())
        })
        .collect();
    files[7].1 = b"---\nname: skill-007\ndescription: caf\xe9\n---\nbody\n".to_vec();
    files[middle].1 = {
        let mut big = skill_md(&format!("skill-{middle:03}"), "Too big").into_bytes();
        big.resize(1024 * 1024 + 1, b'x');
        big
    };
    files[last].1 = b"---\nname: [unclosed\n---\nbody\n".to_vec();
    let borrowed: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(p, b)| (p.as_str(), b.as_slice()))
        .collect();
    let (_dir, root, catalog) = catalog_with(&borrowed);
    assert!(catalog.complete, "{:?}", catalog.diagnostics);
    assert_eq!(
        catalog.skills.len(),
        1 + count - 3,
        "{:?}",
        catalog.diagnostics
    );
    for (i, reason) in [(7, "UTF-8"), (middle, "1 MiB"), (last, "YAML")] {
        let path = root.join(format!("skill-{i:03}/SKILL.md"));
        let d = diagnostic_for(&catalog, &path);
        assert!(d.message.contains(reason), "{d}");
        assert!(catalog.get(&format!("skill-{i:03}")).is_none());
    }
    for i in [0, 6, 8, 63, 64, middle - 1, middle + 1, last - 1] {
        let name = format!("skill-{i:03}");
        let skill = catalog
            .get(&name)
            .unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(
            skill.description(),
            Some(format!("Generated skill {i}").as_str())
        );
    }
}

#[test]
fn a_hundred_documents_read_on_several_host_threads_keep_their_order() {
    // One batch of 64 and one of 36: the host splits the first over threads.
    large_root_reports_each_bad_file_and_loads_the_rest(100);
}

#[test]
fn a_large_root_read_ahead_in_batches_reports_each_bad_file_and_loads_the_rest() {
    // Hundreds of documents take the read-ahead path: announced to the host,
    // read by its threads, handed over batch by batch.
    large_root_reports_each_bad_file_and_loads_the_rest(300);
}

#[test]
fn a_frontmatter_of_tens_of_thousands_of_keys_is_refused_and_the_root_still_served() {
    // Found by hand: 60,000 one-line keys (590 KB, under the document
    // limit) made the provider's parse outlast its deadline, and the whole
    // root dropped out of the catalog.
    let keys: String = (0..60_000).map(|i| format!("k{i}: v\n")).collect();
    let wide = format!("---\nname: wide\ndescription: d\n{keys}---\n");
    let d = skipped(
        &[("wide/SKILL.md", wide.as_bytes())],
        "wide/SKILL.md",
        "64 KiB",
    );
    assert_eq!(d.line, Some(1));
}

#[test]
fn thousands_of_keys_and_list_items_under_the_limit_load() {
    let keys: String = (0..5_000).map(|i| format!("k{i}: v\n")).collect();
    let wide = format!("---\nname: wide\ndescription: d\n{keys}---\n");
    let tools: Vec<String> = (0..8_000).map(|i| format!("t{i}")).collect();
    let listed = format!(
        "---\nname: listed\ndescription: d\nallowed-tools: {}\n---\n",
        tools.join(" ")
    );
    let (_dir, _root, catalog) = catalog_with(&[
        ("wide/SKILL.md", wide.as_bytes()),
        ("listed/SKILL.md", listed.as_bytes()),
    ]);
    assert!(catalog.complete);
    assert!(catalog.get("wide").is_some(), "{:?}", catalog.diagnostics);
    // Over the host's list cap: refused at the boundary, named, the rest goes on.
    assert!(catalog.get("listed").is_none());
    assert!(
        catalog
            .diagnostics
            .iter()
            .any(|d| d.message.contains("allowed-tools has 8000 items")),
        "{:?}",
        catalog.diagnostics
    );
}

#[test]
fn a_yaml_alias_bomb_fails_alone_and_its_root_stays_complete() {
    // Seven anchors, each a list of seven of the one before, the first
    // holding long strings: 823,543 strings of 200 bytes once expanded
    // (about 160 MiB), under serde_yaml's own repetition limit, in under
    // 2 KiB. With no cap it fills the local provider's memory and faults
    // it, hiding every skill of the root.
    let long = "x".repeat(200);
    let mut yaml = format!(
        "---\nname: bomb\ndescription: d\na0: &a0 [{}]\n",
        [long.as_str(); 7].join(", ")
    );
    for i in 1..7 {
        let p = i - 1;
        let refs = vec![format!("*a{p}"); 7].join(", ");
        yaml.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    yaml.push_str("---\nBoom.\n");
    let d = skipped(
        &[("bomb/SKILL.md", yaml.as_bytes())],
        "bomb/SKILL.md",
        "aliases repeating anchors",
    );
    assert!(d.message.contains("expands past"), "{d}");
}
