//! Configuration files as users write them, right and wrong.

use super::*;
use std::time::Duration;

fn parse(text: &str) -> Result<Config, Error> {
    Config::parse(text, Path::new("/etc/skillhost.toml"), Path::new("/etc"))
}

fn error(text: &str) -> (usize, String, String) {
    match parse(text) {
        Err(Error::Config {
            line, key, message, ..
        }) => (line, key, message),
        other => panic!("expected a config error, got {other:?}"),
    }
}

#[test]
fn parses_every_key_with_paths_resolved_against_the_file() {
    let config = parse(
        "[[provider]]\nbuiltin = \"local\"\nroots = [\"skills\", \"/abs\"]\nscope = \"project\"\n\n\
         [[provider]]\nid = \"team\"\nwasm = \"team.wasm\"\nsha256 = \"sha256:ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789\"\n\
         oci = \"oci://ghcr.io/acme/team:1@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\"\n\
         origins = [\"https://skills.example.com:443\"]\nmemory_mib = 32\ndeadline_ms = 1500\n\
         max_skills = 10\nmax_text = 100\nmax_body = 1000\nsettings = { channel = \"stable\" }\n",
    )
    .unwrap();
    let [local, team] = &config.providers[..] else {
        panic!()
    };
    assert_eq!(local.source, Source::Local);
    assert_eq!(
        local.roots,
        [PathBuf::from("/etc/skills"), PathBuf::from("/abs")]
    );
    assert_eq!(local.id, "local:/etc/skills");
    assert_eq!(local.scope, Scope::Project);
    assert_eq!(local.line, 1);
    assert_eq!(team.source, Source::Wasm("/etc/team.wasm".into()));
    assert!(
        team.oci
            .as_deref()
            .is_some_and(|o| o.starts_with("oci://ghcr.io/acme/team:1@"))
    );
    assert_eq!(local.oci, None);
    assert_eq!(
        team.sha256.as_deref(),
        Some("abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789")
    );
    assert_eq!(team.limits.memory_bytes, 32 * 1024 * 1024);
    assert_eq!(team.limits.deadline, Duration::from_millis(1500));
    assert_eq!(
        (team.caps.max_skills, team.caps.max_text, team.caps.max_body),
        (10, 100, 1000)
    );
    assert_eq!(
        team.settings,
        [("channel".to_string(), "stable".to_string())]
    );
    assert_eq!(team.line, 6);
}

#[test]
fn unknown_keys_are_errors_naming_the_key_and_line() {
    let (line, key, _) = error("[[provider]]\nbuiltin = \"local\"\nmemory_gb = 1\n");
    assert_eq!((line, key.as_str()), (3, "memory_gb"));
    let (line, key, _) = error("[[providers]]\nbuiltin = \"local\"\n");
    assert_eq!((line, key.as_str()), (1, "providers"));
}

#[test]
fn bad_values_are_errors_naming_the_key_and_line() {
    for (text, expected_line, expected_key) in [
        (
            "[[provider]]\nbuiltin = \"local\"\nmemory_mib = 0\n",
            3,
            "memory_mib",
        ),
        (
            "[[provider]]\nbuiltin = \"local\"\ndeadline_ms = \"soon\"\n",
            3,
            "",
        ),
        ("[[provider]]\nbuiltin = \"nope\"\n", 2, "builtin"),
        (
            "[[provider]]\nwasm = \"x.wasm\"\nsha256 = \"abc\"\n",
            3,
            "sha256",
        ),
        (
            "[[provider]]\nwasm = \"x.wasm\"\noci = \"oci://r.example/a/b:1\"\n",
            3,
            "oci",
        ),
        (
            "[[provider]]\nbuiltin = \"local\"\noci = \"oci://r.example/a/b:1@sha256:00\"\n",
            3,
            "oci",
        ),
        (
            "[[provider]]\nbuiltin = \"local\"\n\norigins = [\"ftp://x:21\"]\n",
            4,
            "origins",
        ),
        (
            "[[provider]]\nbuiltin = \"local\"\norigins = [\"https://x\"]\n",
            3,
            "origins",
        ),
        ("[[provider]]\nroots = []\n", 1, "builtin"),
        (
            "[[provider]]\nbuiltin = \"local\"\nscope = \"galaxy\"\n",
            3,
            "scope",
        ),
        (
            "[[provider]]\nid = \"a\"\nbuiltin = \"local\"\n[[provider]]\nid = \"a\"\nbuiltin = \"local\"\n",
            4,
            "id",
        ),
    ] {
        let (line, key, message) = error(text);
        assert_eq!(
            (line, key.as_str()),
            (expected_line, expected_key),
            "{text:?}: {message}"
        );
    }
}

#[test]
fn nothing_is_granted_that_the_file_does_not_grant() {
    let config = parse("[[provider]]\nwasm = \"x.wasm\"\n").unwrap();
    let p = &config.providers[0];
    assert!(p.roots.is_empty() && p.origins.is_empty() && p.settings.is_empty());
}

#[test]
fn a_remote_provider_reads_an_mcp_server_with_transport_mcp() {
    let config = parse(
        "[[provider]]\nbuiltin = \"remote\"\ntransport = \"mcp\"\nurl = \"https://skills.example.com/mcp\"\nlabel = \"hosted\"\n",
    )
    .unwrap();
    let Source::Remote(remote) = &config.providers[0].source else {
        panic!("{:?}", config.providers[0].source)
    };
    assert_eq!(
        remote.transport,
        crate::provider::sources::remote::Transport::Mcp
    );
    assert_eq!(remote.label, "hosted");
    assert!(
        remote
            .settings()
            .contains(&("transport".to_string(), "mcp".to_string()))
    );
    let (line, key, message) = error(
        "[[provider]]\nbuiltin = \"remote\"\nurl = \"https://h/mcp\"\ntransport = \"carrier-pigeon\"\n",
    );
    assert_eq!((line, key.as_str()), (4, "transport"));
    assert!(message.contains("expected"), "{message}");
    let (_, key, message) = error(
        "[[provider]]\nbuiltin = \"remote\"\nurl = \"http://skills.example.com/mcp\"\ntransport = \"mcp\"\n",
    );
    assert_eq!(key, "transport");
    assert!(message.contains("only for loopback"), "{message}");
    let (_, key, _) = error("[[provider]]\nbuiltin = \"local\"\ntransport = \"mcp\"\n");
    assert_eq!(key, "transport");
}

#[test]
fn the_listing_table_sets_the_budget_in_characters_or_from_a_context_size() {
    assert_eq!(parse("").unwrap().listing_budget, None);
    assert_eq!(
        parse("[listing]\nbudget = 12000\n").unwrap().listing_budget,
        Some(12_000)
    );
    assert_eq!(
        parse("[listing]\ncontext-tokens = 1000000\n")
            .unwrap()
            .listing_budget,
        Some(40_000),
        "1% of a million tokens at four characters a token"
    );
    let (line, key, message) = error("bundled = true\n[listing]\nbudget = 5\n");
    assert_eq!((line, key.as_str()), (3, "budget"));
    assert!(message.contains("5 is out of range"), "{message}");
    let (line, key, _) = error("[listing]\nbudget = 9000\ncontext-tokens = 200000\n");
    assert_eq!((line, key.as_str()), (1, "listing"));
    let (_, key, _) = error("[listing]\nbudgte = 9000\n");
    assert_eq!(key, "budgte");
}
