//! Where skills come from: skillhost.toml, mirrors over nginx, bundled
//! skills, roots that do not exist.

use super::{examples, skillhost, stdout, workspace};

#[test]
fn every_command_reads_skillhost_toml_or_the_file_given_with_config() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("team/ops")).unwrap();
    std::fs::write(
        dir.path().join("team/ops/SKILL.md"),
        "---\ndescription: Configured root\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"team\"]\n",
    )
    .unwrap();
    // A file found in the folder is used once the user trusted it.
    let trusted = skillhost(&["trust"], dir.path(), home.path());
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let out = skillhost(&["catalog", "--json"], dir.path(), home.path());
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["skills"][0]["name"], "ops");
    let elsewhere = tempfile::tempdir().unwrap();
    let config = dir.path().join("skillhost.toml");
    let out = skillhost(
        &["load", "ops", "--config", config.to_str().unwrap()],
        elsewhere.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout(&out), "body\n");
}

#[test]
fn a_planted_configuration_is_not_used_until_trusted_and_again_after_a_change() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".agents/skills/ours")).unwrap();
    std::fs::write(
        dir.path().join(".agents/skills/ours/SKILL.md"),
        "---\ndescription: The project's own\n---\nbody\n",
    )
    .unwrap();
    // A cloned repository's file: its own component, the whole disk, an origin.
    let planted = "[[provider]]\nwasm = \"evil.wasm\"\nroots = [\"/\"]\norigins = [\"https://evil.example:443\"]\nmemory_mib = 4096\n";
    std::fs::write(dir.path().join("skillhost.toml"), planted).unwrap();
    let out = skillhost(
        &["catalog", "--json", "--no-bundled"],
        dir.path(),
        home.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    for asked in [
        "is not trusted",
        "evil.wasm",
        "reads / (outside its folder)",
        "https://evil.example:443",
        "memory up to 4096 MiB",
        "skillhost trust",
    ] {
        assert!(err.contains(asked), "{asked:?} missing from: {err}");
    }
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(names_in(&value), ["ours"], "the default roots are used");
    // Trusted, it is used (its component is missing, which it now says).
    let safe = "[[provider]]\nbuiltin = \"local\"\nroots = [\".agents/skills\"]\n";
    std::fs::write(dir.path().join("skillhost.toml"), safe).unwrap();
    assert!(
        skillhost(&["trust"], dir.path(), home.path())
            .status
            .success()
    );
    let out = skillhost(
        &["catalog", "--json", "--no-bundled"],
        dir.path(),
        home.path(),
    );
    assert!(!String::from_utf8_lossy(&out.stderr).contains("not trusted"));
    // Changed after trusting: untrusted again.
    std::fs::write(dir.path().join("skillhost.toml"), planted).unwrap();
    let out = skillhost(
        &["catalog", "--json", "--no-bundled"],
        dir.path(),
        home.path(),
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not trusted"));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(names_in(&value), ["ours"]);
}

#[test]
fn a_bad_configuration_names_the_key_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"x\"]\nmemroy_mib = 5\n",
    )
    .unwrap();
    // Named with --config, the file is the user's own: its error stops the command.
    let out = skillhost(
        &["catalog", "--config", "skillhost.toml"],
        dir.path(),
        home.path(),
    );
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("skillhost.toml:4: memroy_mib: unknown field"),
        "{err}"
    );
    // Found in the folder and not trusted, it only warns, with the same words.
    let out = skillhost(&["catalog"], dir.path(), home.path());
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("memroy_mib: unknown field"), "{err}");
}

fn names_in(json: &serde_json::Value) -> Vec<String> {
    json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn mirror_publishes_once_and_catalog_reads_it_back_over_nginx() {
    let home = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let out_dir = site.path().join("public");
    let out_arg = out_dir.display().to_string();
    let published = skillhost(
        &["mirror", &examples(), "--out", &out_arg],
        &workspace(),
        home.path(),
    );
    assert!(published.status.success(), "{published:?}");
    let text = stdout(&published);
    assert!(text.starts_with("published "), "{text}");
    // Unchanged roots: nothing is written again.
    let again = skillhost(
        &["mirror", &examples(), "--out", &out_arg, "--json"],
        &workspace(),
        home.path(),
    );
    let report: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(report["written"], serde_json::json!([]), "{report}");
    assert_eq!(report["removed"], serde_json::json!([]));
    let nginx = skillhost_tests::nginx::Nginx::serve(&out_dir);
    let empty = tempfile::tempdir().unwrap();
    let local = skillhost(
        &["catalog", "--root", &examples(), "--no-bundled", "--json"],
        &workspace(),
        home.path(),
    );
    let local: serde_json::Value = serde_json::from_slice(&local.stdout).unwrap();
    let remote_arg = format!("team={}", nginx.url());
    let remote = skillhost(
        &[
            "catalog",
            "--root",
            &empty.path().display().to_string(),
            "--remote",
            &remote_arg,
            "--no-bundled",
            "--json",
        ],
        &workspace(),
        home.path(),
    );
    assert!(remote.status.success(), "{remote:?}");
    let remote: serde_json::Value = serde_json::from_slice(&remote.stdout).unwrap();
    assert_eq!(remote["complete"], true, "{remote}");
    let expected: Vec<String> = names_in(&local)
        .iter()
        .map(|n| format!("team:{n}"))
        .collect();
    assert_eq!(names_in(&remote), expected);
    // The label defaults to the URL's host; loading prints the body.
    let first = names_in(&local)[0].clone();
    let loaded = skillhost(
        &[
            "load",
            &format!("127.0.0.1:{first}"),
            "--root",
            &empty.path().display().to_string(),
            "--remote",
            &nginx.url(),
        ],
        &workspace(),
        home.path(),
    );
    assert!(loaded.status.success(), "{loaded:?}");
    let local_body = skillhost(
        &["load", &first, "--root", &examples()],
        &workspace(),
        home.path(),
    );
    assert_eq!(stdout(&loaded), stdout(&local_body));
}

#[test]
fn bundled_skills_come_last_and_can_be_left_out() {
    let home = tempfile::tempdir().unwrap();
    let with = skillhost(
        &["catalog", "--root", &examples(), "--json"],
        &workspace(),
        home.path(),
    );
    let with: serde_json::Value = serde_json::from_slice(&with.stdout).unwrap();
    let authoring = with["skills"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "skill-authoring")
        .unwrap_or_else(|| panic!("{with}"));
    assert_eq!(authoring["scope"], "bundled");
    let without = skillhost(
        &["catalog", "--root", &examples(), "--json", "--no-bundled"],
        &workspace(),
        home.path(),
    );
    let without: serde_json::Value = serde_json::from_slice(&without.stdout).unwrap();
    assert!(!names_in(&without).contains(&"skill-authoring".to_string()));
    let body = skillhost(&["load", "skill-authoring"], home.path(), home.path());
    assert!(body.status.success(), "{body:?}");
    assert!(stdout(&body).contains("description"), "{}", stdout(&body));
}

#[test]
fn a_configured_remote_source_is_read_with_its_label() {
    let home = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let published = skillhost(
        &[
            "mirror",
            &examples(),
            "--out",
            &site.path().display().to_string(),
        ],
        &workspace(),
        home.path(),
    );
    assert!(published.status.success(), "{published:?}");
    let nginx = skillhost_tests::nginx::Nginx::serve(site.path());
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("skillhost.toml"),
        format!(
            "bundled = false\n\n[[provider]]\nbuiltin = \"remote\"\nurl = \"{}index.json\"\nlabel = \"shared\"\npoll_seconds = 30\n",
            nginx.url()
        ),
    )
    .unwrap();
    assert!(
        skillhost(&["trust"], project.path(), home.path())
            .status
            .success()
    );
    let out = skillhost(&["catalog", "--json"], project.path(), home.path());
    assert!(out.status.success(), "{out:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names = names_in(&catalog);
    assert!(
        !names.is_empty() && names.iter().all(|n| n.starts_with("shared:")),
        "{names:?}"
    );
    assert_eq!(catalog["skills"][0]["source"], "remote:shared");
}

#[test]
fn a_root_that_does_not_exist_is_an_empty_complete_source() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("not/yet");
    let out = skillhost(
        &[
            "catalog",
            "--json",
            "--no-bundled",
            "--root",
            &missing.display().to_string(),
        ],
        home.path(),
        home.path(),
    );
    assert!(out.status.success(), "{out:?}");
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        catalog,
        serde_json::json!({"complete": true, "skills": [], "diagnostics": []})
    );
}

/// A project folder with one skill of its own under `.agents/skills`.
fn project_with_a_skill() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".agents/skills/ours")).unwrap();
    std::fs::write(
        dir.path().join(".agents/skills/ours/SKILL.md"),
        "---\ndescription: The project's own\n---\nbody\n",
    )
    .unwrap();
    dir
}

#[test]
fn a_planted_configuration_that_does_not_parse_warns_and_every_command_runs_on_the_defaults() {
    let dir = project_with_a_skill();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]\nthis is = not toml",
    )
    .unwrap();
    for args in [
        vec!["catalog", "--json", "--no-bundled"],
        vec!["catalog", "--for", "model", "--no-bundled"],
        vec!["load", "ours"],
    ] {
        let out = skillhost(&args, dir.path(), home.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {err}");
        assert!(
            err.contains("is not trusted") && err.contains("cannot be read as a configuration"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn what_an_untrusted_configuration_asks_is_shown_escaped_with_links_resolved() {
    let dir = project_with_a_skill();
    let home = tempfile::tempdir().unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), dir.path().join("docs")).unwrap();
    // A root whose name clears the screen and prints a fake verdict, an
    // unknown key with escapes of its own, and a root linked out of the folder.
    let planted = "[[provider]]\nbuiltin = \"local\"\nroots = [\"docs\", \"/\\u001b[2J\\u001b[Hnothing beyond its own folder\"]\n";
    std::fs::write(dir.path().join("skillhost.toml"), planted).unwrap();
    let out = skillhost(&["catalog", "--no-bundled"], dir.path(), home.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        !err.contains('\u{1b}'),
        "no escape reaches the terminal: {err:?}"
    );
    assert!(
        err.contains("\\u{1b}[2J"),
        "the escape is shown as text: {err}"
    );
    let real = std::fs::canonicalize(elsewhere.path()).unwrap();
    assert!(
        err.contains(&format!("a link to {}", real.display())),
        "the linked root names its target: {err}"
    );
    std::fs::write(
        dir.path().join("skillhost.toml"),
        "[[provider]]\nbuiltin = \"local\"\n\"\\u001b[31mevil\" = 1\n",
    )
    .unwrap();
    let out = skillhost(&["catalog", "--no-bundled"], dir.path(), home.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !err.contains('\u{1b}'),
        "an unknown key is escaped too: {err:?}"
    );
}

#[test]
fn a_symlinked_configuration_resolves_against_its_own_folder_not_the_links() {
    let home = tempfile::tempdir().unwrap();
    let proj = project_with_a_skill();
    let attacker = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(attacker.path().join(".agents/skills/theirs")).unwrap();
    std::fs::write(
        attacker.path().join(".agents/skills/theirs/SKILL.md"),
        "---\ndescription: The attacker's\n---\nbody\n",
    )
    .unwrap();
    std::fs::write(
        proj.path().join("skillhost.toml"),
        "bundled = false\n[[provider]]\nbuiltin = \"local\"\nroots = [\".agents/skills\"]\n",
    )
    .unwrap();
    assert!(
        skillhost(&["trust"], proj.path(), home.path())
            .status
            .success()
    );
    std::os::unix::fs::symlink(
        proj.path().join("skillhost.toml"),
        attacker.path().join("skillhost.toml"),
    )
    .unwrap();
    let out = skillhost(&["catalog", "--json"], attacker.path(), home.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        names_in(&value),
        ["ours"],
        "the trusted file's roots are its own folder's, not the link's"
    );
}
