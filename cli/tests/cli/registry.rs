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

/// What `publish` says when it refuses `bytes` (nothing is pushed).
fn publish_refusal(registry: &LocalRegistry, home: &Path, bytes: &[u8]) -> String {
    let path = file(home, "refused.bin", bytes);
    let tag = registry.reference("acme/refused:1").to_string();
    let out = skillhost(
        &["publish", &path, &tag, "--plain-http"],
        &workspace(),
        home,
    );
    assert_eq!(out.status.code(), Some(1));
    stderr(&out)
}

/// Pushes `bytes` as a component the way any other tool could, unchecked.
fn push_unchecked(registry: &LocalRegistry, path: &str, bytes: &[u8]) -> String {
    let reference = registry.reference(path);
    skillhost_tests::registry::runtime()
        .block_on(registry.client(&reference).push(
            bytes,
            &reference,
            &skillhost_oci::Credentials::Anonymous,
        ))
        .unwrap();
    reference.to_string()
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
    let reference = push_unchecked(&registry, "acme/text:1", b"# not a component");
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = skillhost(
        &["add", &reference, "--plain-http", "--yes"],
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
    let said = publish_refusal(&registry, home.path(), b"# not a component");
    assert!(said.contains("is not a provider component"), "{said}");
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

#[test]
fn a_token_file_admits_what_its_issuer_granted_and_a_refused_one_writes_nothing_and_is_never_shown()
{
    let registry = LocalRegistry::with_token_auth();
    let author = tempfile::tempdir().unwrap();
    let tag = format!("oci://{}/acme/local:1", registry.addr);
    let wasm = file(author.path(), "local.wasm", LOCAL_PROVIDER);
    let pull_push = registry.token("acme/local", &["pull", "push"]);
    let push_token = file(author.path(), "push.token", pull_push.as_bytes());
    let publish = |token: &str| {
        skillhost(
            &[
                "publish",
                &wasm,
                &tag,
                "--plain-http",
                "--token-file",
                token,
            ],
            &workspace(),
            author.path(),
        )
    };
    let out = publish(&push_token);
    assert!(out.status.success(), "{}", stderr(&out));

    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let add = |token: &str| {
        skillhost(
            &[
                "add",
                &tag,
                "--plain-http",
                "--yes",
                "--root",
                &examples(),
                "--token-file",
                token,
            ],
            project.path(),
            home.path(),
        )
    };
    // Another issuer's token, and a pull token for another repository.
    for token in [
        registry.untrusted_token("acme/local", &["pull"]),
        registry.token("acme/other", &["pull"]),
    ] {
        let path = file(
            home.path(),
            "refused.token",
            format!("{token}\n").as_bytes(),
        );
        let out = add(&path);
        assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(
            said.contains("acme/local:1") && said.contains("refused the credentials"),
            "{said}"
        );
        assert!(!said.contains(&token[token.len() - 24..]), "{said}");
        assert!(!project.path().join("skillhost.toml").exists());
        assert!(!state_in(home.path()).join("components").exists());
    }

    // A pull-only token for the repository: added, and the token is in
    // no output and not in skillhost.toml.
    let pull = registry.token("acme/local", &["pull"]);
    let path = file(home.path(), "pull.token", pull.as_bytes());
    let out = add(&path);
    assert!(out.status.success(), "{}", stderr(&out));
    let said = format!("{}{}", stdout(&out), stderr(&out));
    let toml = std::fs::read_to_string(project.path().join("skillhost.toml")).unwrap();
    for text in [&said, &toml] {
        assert!(!text.contains(&pull[pull.len() - 24..]), "{text}");
    }
    assert!(toml.contains(&format!("oci = \"{tag}@sha256:")), "{toml}");

    // The pull token cannot push.
    let out = publish(&path);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("refused the credentials"),
        "{}",
        stderr(&out)
    );

    // The registry goes away; the pinned provider runs from the store.
    drop(registry);
    let out = skillhost(&["catalog", "--json"], project.path(), home.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let served = json["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source"] == "local")
        .count();
    assert!(served >= 5, "{json}");
}

#[test]
fn a_wasi_command_is_refused_by_publish_and_by_add_naming_the_reference() {
    use skillhost_tests::COMMAND_GUEST;
    let registry = LocalRegistry::start();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let said = publish_refusal(&registry, home.path(), COMMAND_GUEST);
    assert!(said.contains("is a WASI command"), "{said}");

    // Pushed by other means, it is still refused when added.
    let reference = push_unchecked(&registry, "acme/command:1", COMMAND_GUEST);
    let out = skillhost(
        &["add", &reference, "--plain-http", "--yes"],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("acme/command:1@sha256:")
            && said.contains("is not a provider component")
            && said.contains("is a WASI command"),
        "{said}"
    );
    assert!(!project.path().join("skillhost.toml").exists());
    assert!(!state_in(home.path()).join("components").exists());
}

#[test]
fn a_planted_config_link_a_bad_id_or_a_fifo_as_token_file_is_refused_at_once() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let elsewhere = home.path().join("elsewhere.toml");
    std::fs::write(&elsewhere, "").unwrap();
    std::os::unix::fs::symlink(&elsewhere, project.path().join("skillhost.toml")).unwrap();
    // Refused before the registry is asked: nothing listens on port 9.
    let out = skillhost(
        &[
            "add",
            "oci://127.0.0.1:9/acme/local:1",
            "--plain-http",
            "--yes",
        ],
        project.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("skillhost.toml is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert!(
        std::fs::symlink_metadata(project.path().join("skillhost.toml"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "");

    // An id that could not name a provider anywhere it is shown.
    let fresh = tempfile::tempdir().unwrap();
    let out = skillhost(
        &[
            "add",
            "oci://127.0.0.1:9/acme/local:1",
            "--plain-http",
            "--yes",
            "--id",
            "team\"\n[[provider]]\nbuiltin = \"local\"",
        ],
        fresh.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("an id is 1 to 64 letters"),
        "{}",
        stderr(&out)
    );
    assert!(!fresh.path().join("skillhost.toml").exists());

    // A FIFO nobody writes to would block a reader forever.
    let fifo = home.path().join("token.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let other = tempfile::tempdir().unwrap();
    let out = skillhost(
        &[
            "add",
            "oci://127.0.0.1:9/acme/local:1",
            "--plain-http",
            "--yes",
            "--token-file",
            &fifo.display().to_string(),
        ],
        other.path(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("token.fifo") && said.contains("not a regular file"),
        "{said}"
    );
}

/// A server on loopback answering every request with `status` (or, with
/// `None`, reading it and never answering), for as long as the test runs.
fn broken_registry(status: Option<u16>) -> String {
    use std::io::{Read as _, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    std::thread::spawn(move || {
        for mut socket in listener.incoming().map_while(Result::ok) {
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                let _ = socket.read(&mut buf);
                match status {
                    Some(status) => {
                        let body = "internal error";
                        let _ = write!(
                            socket,
                            "HTTP/1.1 {status} X\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    None => std::thread::sleep(std::time::Duration::from_secs(600)),
                }
            });
        }
    });
    addr
}

#[test]
fn a_registry_answering_500_or_nothing_or_not_running_is_named_and_nothing_is_written() {
    let home = tempfile::tempdir().unwrap();
    // A silent registry is given up by the deadline or by the read timeout
    // it also bounds, whichever fires first.
    // And one that is not running says so, not only that a request failed.
    // Its port stays bound, without listening, for the whole test: a port
    // merely freed could be taken by a test running beside this one.
    let held = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    held.bind(&std::net::SocketAddr::from(([127, 0, 0, 1], 0)).into())
        .unwrap();
    let down = held.local_addr().unwrap().as_socket().unwrap().to_string();
    for (addr, why) in [
        (broken_registry(Some(500)), &["500"][..]),
        (
            broken_registry(None),
            &["no answer within 2 s", "timed out"][..],
        ),
        (down, &["Connection refused"][..]),
    ] {
        let project = tempfile::tempdir().unwrap();
        let tag = format!("oci://{addr}/acme/broken:1");
        let out = skillhost(
            &[
                "add",
                &tag,
                "--plain-http",
                "--yes",
                "--registry-timeout",
                "2",
            ],
            project.path(),
            home.path(),
        );
        assert_eq!(out.status.code(), Some(1));
        let said = stderr(&out);
        assert!(
            said.contains("acme/broken:1") && why.iter().any(|w| said.contains(w)),
            "{said}"
        );
        assert!(!project.path().join("skillhost.toml").exists());
    }
}

#[test]
fn update_without_a_configuration_says_there_is_nothing_to_follow() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = skillhost(&["update", "--check"], project.path(), home.path());
    assert_eq!(out.status.code(), Some(1));
    let said = stderr(&out);
    assert!(
        said.contains("skillhost.toml: no such file")
            && said.contains("no provider was added from a registry here"),
        "{said}"
    );
}
