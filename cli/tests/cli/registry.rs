//! `publish`, `add` and `update` against a real registry on loopback: a
//! component published by one user is added by another (its own state
//! folder), runs pinned from the store while the tag moves, and is
//! re-pinned only when approved. Bad answers write nothing.

use crate::{examples, skillhost, state_in, stdout, workspace};
use skillhost::provider::sources::builtin::{LOCAL_PROVIDER, REMOTE_PROVIDER};
use skillhost_tests::registry::LocalRegistry;
use std::path::Path;

fn file(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_published_provider_is_added_runs_pinned_while_its_tag_moves_and_is_repinned_when_approved() {
    let registry = LocalRegistry::start();
    let author = tempfile::tempdir().unwrap();
    let tag = format!("oci://{}/acme/local:1", registry.addr);
    let v1 = file(author.path(), "local.wasm", LOCAL_PROVIDER);
    let out = skillhost(
        &["publish", &v1, &tag, "--plain-http", "--json"],
        &workspace(),
        author.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let published: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let pinned = published["reference"].as_str().unwrap().to_string();
    assert!(pinned.starts_with(&format!("{tag}@sha256:")), "{pinned}");

    // Another user, another state folder, a project folder of their own.
    let user = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let examples = examples();
    let out = skillhost(
        &["add", &tag, "--plain-http", "--root", &examples, "--yes"],
        project.path(),
        user.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        shown.contains("contract   skillhost:provider@0.3.0"),
        "{shown}"
    );
    assert!(
        shown.contains("roots: serves nothing without one"),
        "{shown}"
    );
    let toml = std::fs::read_to_string(project.path().join("skillhost.toml")).unwrap();
    assert!(toml.contains(&format!("oci = \"{pinned}\"")), "{toml}");
    let sha = skillhost_skill::digest::sha256_hex(LOCAL_PROVIDER);
    assert!(toml.contains(&format!("sha256 = \"{sha}\"")), "{toml}");
    let stored = state_in(user.path()).join(format!("components/sha256/{sha}.wasm"));
    assert_eq!(std::fs::read(&stored).unwrap(), LOCAL_PROVIDER);
    assert!(
        !toml.contains("origins"),
        "nothing is granted that was not passed"
    );

    // Trusted and runnable at once: the catalog shows the example skills.
    let catalog = |home: &Path| {
        let out = skillhost(&["catalog", "--json"], project.path(), home);
        assert!(out.status.success(), "{}", stderr(&out));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["skills"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["source"] == "local")
            .count()
    };
    assert!(catalog(user.path()) >= 5);

    // The tag moves to a version that asks for more.
    let v2 = file(author.path(), "remote.wasm", REMOTE_PROVIDER);
    let out = skillhost(
        &["publish", &v2, &tag, "--plain-http"],
        &workspace(),
        author.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        catalog(user.path()) >= 5,
        "the pinned version keeps running"
    );

    let out = skillhost(
        &["update", "--check", "--plain-http"],
        project.path(),
        user.path(),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = stdout(&out);
    assert!(said.contains("has a new version"), "{said}");
    assert!(
        said.contains(&format!("pinned  {}", &pinned[pinned.len() - 71..])),
        "{said}"
    );
    assert!(
        said.contains("it asks for one more origin: * (skillhost.toml does not grant it"),
        "{said}"
    );
    assert!(
        said.contains("it asks for a new setting: url (required)"),
        "{said}"
    );
    let unchanged = std::fs::read_to_string(project.path().join("skillhost.toml")).unwrap();
    assert_eq!(unchanged, toml, "--check changes nothing");

    // No terminal and no --yes: nothing is re-pinned.
    let out = skillhost(&["update", "--plain-http"], project.path(), user.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nothing written"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(project.path().join("skillhost.toml")).unwrap(),
        toml
    );

    let out = skillhost(
        &["update", "--plain-http", "--yes"],
        project.path(),
        user.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let repinned = std::fs::read_to_string(project.path().join("skillhost.toml")).unwrap();
    let sha2 = skillhost_skill::digest::sha256_hex(REMOTE_PROVIDER);
    assert!(
        repinned.contains(&format!("sha256 = \"{sha2}\"")),
        "{repinned}"
    );
    assert!(!repinned.contains(&pinned), "{repinned}");
    assert!(
        repinned.contains(&format!("roots = [\"{examples}\"]")),
        "grants kept"
    );
    let out = skillhost(
        &["update", "--check", "--plain-http"],
        project.path(),
        user.path(),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stdout(&out).contains("up to date"));
}

#[test]
fn a_layer_that_is_not_a_provider_component_is_refused_and_nothing_is_written() {
    let registry = LocalRegistry::start();
    let reference = registry.reference("acme/text:1");
    skillhost_tests::registry::runtime()
        .block_on(registry.client(&reference).push(
            b"# not a component",
            &reference,
            &skillhost_oci::Credentials::Anonymous,
        ))
        .unwrap();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["add", &reference.to_string(), "--plain-http", "--yes"],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("acme/text:1") && said.contains("is not a provider component"),
        "{said}"
    );
    assert!(!project.path().join("skillhost.toml").exists());

    // publish refuses it before anything is sent.
    let text = file(home.path(), "README.md", b"# not a component");
    let out = skillhost(
        &[
            "publish",
            &text,
            &registry.reference("acme/readme:1").to_string(),
            "--plain-http",
        ],
        &workspace(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not a provider component"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn without_a_terminal_or_yes_and_with_wrong_credentials_nothing_is_written() {
    let open = LocalRegistry::start();
    let author = tempfile::tempdir().unwrap();
    let tag = format!("oci://{}/acme/local:1", open.addr);
    let wasm = file(author.path(), "local.wasm", LOCAL_PROVIDER);
    let out = skillhost(
        &["publish", &wasm, &tag, "--plain-http"],
        &workspace(),
        author.path(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = skillhost(&["add", &tag, "--plain-http"], project.path(), home.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("nothing written"), "{}", stderr(&out));
    assert!(!project.path().join("skillhost.toml").exists());
    assert!(
        !state_in(home.path()).join("components").exists(),
        "nothing stored"
    );

    let private = LocalRegistry::with_basic_auth();
    let docker = home.path().join("docker.json");
    // "publisher:wrong"
    std::fs::write(
        &docker,
        format!(
            r#"{{"auths":{{"{}":{{"auth":"cHVibGlzaGVyOndyb25n"}}}}}}"#,
            private.addr
        ),
    )
    .unwrap();
    let tag = format!("oci://{}/acme/local:1", private.addr);
    let out = skillhost(
        &[
            "add",
            &tag,
            "--plain-http",
            "--yes",
            "--docker-config",
            &docker.display().to_string(),
        ],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("refused the credentials") && !said.contains("wrong"),
        "{said}"
    );
    assert!(!project.path().join("skillhost.toml").exists());

    // Plain HTTP beyond loopback is refused before any request.
    let out = skillhost(
        &[
            "add",
            "oci://registry.example.com/acme/local:1",
            "--plain-http",
            "--yes",
        ],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("only for a registry on loopback"),
        "{}",
        stderr(&out)
    );
}
