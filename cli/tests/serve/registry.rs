//! The Python example shipped the way the README's "Shipping a provider"
//! says: its author publishes it to a registry, a user adds it from their
//! own home, an MCP client sees its skills, and the author's next version,
//! asking for one more origin, is re-pinned only when the user approves.

use crate::support::*;
use serde_json::json;
use skillhost_tests::languages::{python_example, python_example_asking_for};
use skillhost_tests::registry::LocalRegistry;

fn text(out: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

#[test]
fn the_python_example_is_published_added_served_and_its_next_version_repinned_when_approved() {
    let registry = LocalRegistry::start();
    let tag = format!("oci://{}/acme/provider-python:1", registry.addr);
    let author = Fixture::new(&[]);
    let v1 = python_example();
    let out = author
        .command(&["publish", &v1.display().to_string(), &tag, "--plain-http"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));

    let user = Fixture::new(&[]);
    let config = user.base().join("skillhost.toml");
    std::fs::write(&config, "bundled = false\n").unwrap();
    let out = user
        .command(&["add", &tag, "--plain-http", "--yes", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let added: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(added["written"], true, "{added}");
    assert_eq!(added["id"], "provider-python", "{added}");
    assert_eq!(added["contract"], "skillhost:provider@0.3.0", "{added}");
    let pinned = added["reference"].as_str().unwrap().to_string();
    assert!(pinned.starts_with(&format!("{tag}@sha256:")), "{pinned}");

    let out = user.command(&["catalog", "--json"]).output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let catalog: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut names: Vec<&str> = catalog["skills"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["source"] == "provider-python")
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["py-farewell", "py-greeting"], "{catalog}");

    {
        let mut server = StdioServer::start(&user, &[]);
        let listed = server.call("skills/list", json!({}));
        let uris: Vec<&str> = listed["result"]["skills"]
            .as_array()
            .unwrap_or_else(|| panic!("{listed}"))
            .iter()
            .map(|s| s["uri"].as_str().unwrap())
            .collect();
        assert!(uris.contains(&"skill://py-greeting/SKILL.md"), "{uris:?}");
    }

    // Version 2 asks for an origin; the tag moves to it.
    let origin = "https://skills.example.com";
    let v2 = python_example_asking_for(origin);
    let out = author
        .command(&["publish", &v2.display().to_string(), &tag, "--plain-http"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let before = std::fs::read_to_string(&config).unwrap();

    let out = user
        .command(&["update", "--check", "--plain-http"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let said = text(&out);
    assert!(
        said.contains(&format!("it asks for one more origin: {origin}")),
        "{said}"
    );
    let out = user
        .command(&["update", "--check", "--plain-http", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let checked: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(checked["providers"][0]["status"], "new", "{checked}");
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

    // No terminal to ask on, no --yes: nothing is written.
    let out = user.command(&["update", "--plain-http"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("nothing written"), "{}", text(&out));
    assert_eq!(std::fs::read_to_string(&config).unwrap(), before);

    let out = user
        .command(&["update", "--plain-http", "--yes"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let after = std::fs::read_to_string(&config).unwrap();
    let sha2 = skillhost_skill::digest::sha256_hex(&std::fs::read(&v2).unwrap());
    assert!(after.contains(&format!("sha256 = \"{sha2}\"")), "{after}");
    assert!(!after.contains(&pinned), "{after}");
    assert!(
        !after.contains(origin),
        "what the new version asks for is not granted by approving it: {after}"
    );
}
