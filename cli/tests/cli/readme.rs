//! Every command the README shows is run: here, in a fresh project holding
//! a copy of the example skills, or by the test named for it. A command
//! added to the README that is neither run here nor named fails this test.

use super::*;

/// README commands another test runs, and which one: each runs a real tool
/// this test cannot start cheaply (a cargo build, an MCP client, a watcher
/// that never exits, the suite itself).
const ELSEWHERE: &[(&str, &str)] = &[
    (
        "./scripts/test",
        ".ci/run runs exactly this on a clean clone",
    ),
    (
        "cp -r examples/provider-template ~/my-provider",
        "tests/integration/provider_template.rs builds the template outside the workspace",
    ),
    (
        "cd ~/my-provider",
        "tests/integration/provider_template.rs builds the template outside the workspace",
    ),
    (
        "cargo build --release --target wasm32-wasip2",
        "tests/integration/provider_template.rs::the_template_builds_and_serves_the_skills_of_its_skills_toml",
    ),
    (
        "skillhost inspect target/wasm32-wasip2/release/provider_template.wasm",
        "cli/tests/cli/inspect.rs::inspect_prints_the_contract_imports_exports_digest_and_a_pinned_grant",
    ),
    (
        "skillhost conformance target/wasm32-wasip2/release/provider_template.wasm --root skills",
        "tests/integration/provider_template.rs::the_template_passes_the_conformance_kit",
    ),
    (
        "claude mcp add skillhost -- skillhost serve",
        "cli/tests/serve/python.rs::the_python_sdk_over_stdio_with_initialize (an MCP client starting `skillhost serve`)",
    ),
    (
        "skillhost serve --http 127.0.0.1:8765",
        "cli/tests/serve/python.rs::the_python_sdk_over_http_with_initialize",
    ),
    (
        "skillhost publish provider.wasm oci://ghcr.io/acme/greeting:1",
        "cli/tests/serve/registry.rs::the_python_example_is_published_added_served_and_its_next_version_repinned_when_approved (against a registry on loopback)",
    ),
    (
        "skillhost add oci://ghcr.io/acme/greeting:1 --root ~/notes",
        "cli/tests/cli/registry.rs::a_published_provider_is_added_runs_pinned_while_its_tag_moves_and_is_repinned_when_approved",
    ),
    (
        "skillhost update --check",
        "cli/tests/cli/registry.rs::a_published_provider_is_added_runs_pinned_while_its_tag_moves_and_is_repinned_when_approved",
    ),
    (
        "skillhost update",
        "cli/tests/serve/registry.rs::the_python_example_is_published_added_served_and_its_next_version_repinned_when_approved",
    ),
    (
        "skillhost watch",
        "cli/tests/cli/session.rs::watch_prints_the_catalog_again_only_when_it_changes",
    ),
];

/// Each command of the README's `sh` blocks, without its comment; commands
/// joined by `&&` are separate.
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(workspace().join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if !in_sh || line.trim_start().starts_with('#') {
            continue;
        }
        let code = line.split("  #").next().unwrap_or(line).trim();
        for part in code.split("&&").map(str::trim).filter(|p| !p.is_empty()) {
            commands.push(part.to_string());
        }
    }
    commands
}

/// Copies the example skills to `to`.
fn copy_examples(to: &Path) {
    copy_tree(&workspace().join("examples/skills"), to);
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn every_readme_command_runs_here_or_is_named_with_the_test_that_runs_it() {
    let commands = readme_commands();
    assert!(commands.len() >= 10, "the README's commands: {commands:?}");
    let project = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let cwd = project.path();
    // The project a reader stands in: the repository's examples, both where
    // `--root examples/skills` names them and as the project's own skills.
    copy_examples(&cwd.join("examples/skills"));
    copy_examples(&cwd.join(".claude/skills"));
    let mut ran = Vec::new();
    for command in &commands {
        if ELSEWHERE.iter().any(|(c, _)| c == command)
            || command == "rustup target add wasm32-wasip2"
        {
            continue;
        }
        // The newcomer's run command is the binary this test runs.
        let line = command
            .strip_prefix("cargo run -p skillhost-cli -- ")
            .map(|rest| format!("skillhost {rest}"))
            .unwrap_or_else(|| command.clone());
        let Some(args) = line.strip_prefix("skillhost ") else {
            panic!("README command {command:?} is neither run here nor named in ELSEWHERE");
        };
        let args: Vec<&str> = args.split_whitespace().collect();
        let out = skillhost(&args, cwd, home.path());
        assert!(
            out.status.success(),
            "README command {command:?} failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        ran.push((command.as_str(), stdout(&out)));
    }
    let printed = |prefix: &str| -> &str {
        ran.iter()
            .find(|(c, _)| c.starts_with(prefix))
            .map(|(_, out)| out.as_str())
            .unwrap_or_else(|| panic!("no README command starts with {prefix:?}"))
    };
    assert!(printed("cargo run -p skillhost-cli -- catalog").contains("writing-skill-md"));
    assert!(
        printed("skillhost catalog --root examples/skills --json")
            .trim_start()
            .starts_with('{')
    );
    assert!(printed("skillhost load writing-skill-md").contains("description"));
    assert_eq!(printed("skillhost inject").trim(), "published");
    assert!(printed("skillhost invoke code-review").contains("HEAD~1"));
    assert!(
        cwd.join("site/index.json").is_file(),
        "mirror wrote the site"
    );
    // Every named command is still in the README.
    for (command, _) in ELSEWHERE {
        assert!(
            commands.iter().any(|c| c == command),
            "ELSEWHERE names {command:?}, which the README no longer shows"
        );
    }
}
