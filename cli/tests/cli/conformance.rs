//! `skillhost conformance`: the exit code, one line per check, the JSON
//! report's shape and the JUnit file's validity.

use super::{skillhost, stdout, workspace};
use skillhost::provider::sources::builtin::LOCAL_PROVIDER;
use skillhost_tests::HOSTILE_GUEST;
use std::path::Path;

fn component(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.display().to_string()
}

#[test]
fn a_conforming_provider_exits_0_with_one_line_per_check() {
    let home = tempfile::tempdir().unwrap();
    let wasm = component(home.path(), "local.wasm", LOCAL_PROVIDER);
    let out = skillhost(&["conformance", &wasm], &workspace(), home.path());
    let text = stdout(&out);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        skillhost_conformance::CHECKS.len() + 1,
        "{text}"
    );
    for (line, id) in lines.iter().zip(skillhost_conformance::CHECKS) {
        assert!(line.starts_with("pass  "), "{line}");
        assert!(line.contains(id), "{line} is the {id} check");
    }
    assert!(
        lines.last().unwrap().ends_with(&format!(
            "{} passed, 0 failed, 0 skipped",
            skillhost_conformance::CHECKS.len()
        )),
        "{text}"
    );
}

#[test]
fn a_failing_provider_exits_1_and_json_and_junit_report_the_failures() {
    let home = tempfile::tempdir().unwrap();
    let wasm = component(home.path(), "hostile.wasm", HOSTILE_GUEST);
    let root = home.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    let junit = home.path().join("report.xml");
    let out = skillhost(
        &[
            "conformance",
            &wasm,
            "--root",
            &root.display().to_string(),
            "--setting",
            "attack=trap",
            "--setting",
            "in=load",
            "--json",
            "--junit",
            &junit.display().to_string(),
        ],
        &workspace(),
        home.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let component = &json["component"];
    assert_eq!(component["path"], wasm.as_str());
    assert_eq!(component["wit"], "skillhost:provider@0.3.0");
    assert_eq!(
        component["sha256"],
        skillhost_skill::digest::sha256_hex(HOSTILE_GUEST)
    );
    let checks = json["checks"].as_array().unwrap();
    assert_eq!(checks.len(), skillhost_conformance::CHECKS.len());
    for check in checks {
        let keys: Vec<&str> = check
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, ["id", "status", "detail", "ms"]);
        assert!(check["ms"].is_u64());
    }
    let load = checks.iter().find(|c| c["id"] == "load").unwrap();
    assert_eq!(load["status"], "fail");
    assert!(load["detail"].as_str().unwrap().contains("trap"), "{load}");
    let count = |status: &str| checks.iter().filter(|c| c["status"] == status).count();
    assert_eq!(json["failed"], 1);
    assert_eq!(json["failed"], count("fail"));
    assert_eq!(json["passed"], count("pass"));
    assert_eq!(json["skipped"], count("skip"));

    let xml = std::fs::read_to_string(&junit).unwrap();
    let doc = roxmltree::Document::parse(&xml).expect("well-formed XML");
    let suites = doc.root_element();
    assert_eq!(suites.tag_name().name(), "testsuites");
    assert_eq!(suites.attribute("failures"), Some("1"));
    let cases: Vec<_> = suites
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .collect();
    assert_eq!(cases.len(), skillhost_conformance::CHECKS.len());
    let failed: Vec<&str> = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("failure")))
        .filter_map(|c| c.attribute("name"))
        .collect();
    assert_eq!(failed, ["load"]);
    let skipped = cases
        .iter()
        .filter(|c| c.children().any(|n| n.has_tag_name("skipped")))
        .count();
    assert_eq!(skipped.to_string(), suites.attribute("skipped").unwrap());
}

#[test]
fn a_file_that_is_not_a_component_fails_the_contract_check() {
    let home = tempfile::tempdir().unwrap();
    let wasm = component(home.path(), "not.wasm", b"not a component");
    let out = skillhost(&["conformance", &wasm], &workspace(), home.path());
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(
        text.lines().next().unwrap().starts_with("fail  contract"),
        "{text}"
    );
    assert!(text.contains("not a valid provider component"), "{text}");
}

#[test]
fn a_missing_file_and_a_bad_setting_are_errors_naming_them() {
    let home = tempfile::tempdir().unwrap();
    let missing = home.path().join("missing.wasm").display().to_string();
    let out = skillhost(&["conformance", &missing], &workspace(), home.path());
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("missing.wasm"), "{stderr}");
    // The OS's reason once: the error's message carries it, and its chain
    // of causes does not repeat it.
    assert_eq!(stderr.matches("No such file").count(), 1, "{stderr}");
    let out = skillhost(
        &["conformance", &missing, "--setting", "novalue"],
        &workspace(),
        home.path(),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("KEY=VALUE"));
}

#[test]
fn a_device_named_as_the_component_is_refused_at_once_by_conformance_and_inspect() {
    let home = tempfile::tempdir().unwrap();
    // Read the ordinary way, /dev/zero never ends.
    for command in ["conformance", "inspect"] {
        let out = skillhost(&[command, "/dev/zero"], &workspace(), home.path());
        assert_eq!(out.status.code(), Some(1), "{command}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("/dev/zero") && stderr.matches("not a regular file").count() == 1,
            "{command}: {stderr}"
        );
    }
}
