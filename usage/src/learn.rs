//! New skills from repeated tool sequences: each pattern confident enough
//! becomes `<root>/<name>/SKILL.md` (name, description, `when_to_use`,
//! `version: "0.1.0"`, `pinned: false`, one step per tool) in a writable
//! root. An existing skill of that name, anywhere in the catalog or in the
//! root, is never overwritten: that pattern is skipped. Each `SKILL.md` is
//! written under a hidden name and then renamed into place, so a watcher
//! never reads half of one.

use super::error::Error;
use super::patterns::{Pattern, skill_name};
use super::steps::{is_trivial, parse};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Patterns below this confidence are not learned unless asked.
pub const DEFAULT_MIN_CONFIDENCE: f64 = 0.5;
/// The version every learned skill starts at.
pub const VERSION: &str = "0.1.0";
/// Most characters of a tool name quoted in a learned skill's text.
const MAX_TOOL_CHARS: usize = 80;

/// One skill `learn` would write.
#[derive(Debug, Clone, PartialEq)]
pub struct Planned {
    /// The skill's name (and folder name).
    pub name: String,
    /// The folder it goes into.
    pub folder: PathBuf,
    /// The `SKILL.md` text.
    pub content: String,
    /// The pattern it comes from.
    pub pattern: Pattern,
    /// Why it will not be written, if it will not.
    pub skipped: Option<String>,
}

/// What to write for `patterns` into `root`: those with at least
/// `min_confidence`, in order. `existing` holds the names of skills that
/// exist already (the catalog's); names two patterns share get `-2`, `-3`.
pub fn plan(
    patterns: &[Pattern],
    root: &Path,
    existing: &BTreeSet<String>,
    min_confidence: f64,
) -> Vec<Planned> {
    let mut taken: BTreeSet<String> = BTreeSet::new();
    let mut out = Vec::new();
    // A loop of one step (the same tool again and again) is no skill.
    for pattern in patterns
        .iter()
        .filter(|p| p.confidence >= min_confidence && !is_trivial(&p.tools))
    {
        let base = skill_name(&pattern.tools);
        let name = (1..)
            .map(|n| {
                if n == 1 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                }
            })
            .find(|n| !taken.contains(n))
            .unwrap_or(base);
        taken.insert(name.clone());
        let folder = root.join(&name);
        let skipped = if existing.contains(&name) {
            Some(format!("a skill named {name} already exists"))
        } else {
            [folder.clone(), root.join(format!("{name}.md"))]
                .into_iter()
                .find(|p| p.symlink_metadata().is_ok())
                .map(|path| format!("{} already exists", path.display()))
        };
        out.push(Planned {
            content: skill_md(pattern, &name),
            name,
            folder,
            pattern: pattern.clone(),
            skipped,
        });
    }
    out
}

/// Writes every planned skill that is not skipped; returns the `SKILL.md`
/// files written. Stops at the first failure (what was written stays).
pub fn write(planned: &[Planned], root: &Path) -> Result<Vec<PathBuf>, Error> {
    std::fs::create_dir_all(root).map_err(Error::io(root))?;
    let mut written = Vec::new();
    for skill in planned.iter().filter(|p| p.skipped.is_none()) {
        // Creating the folder is the check: it fails if anything is there,
        // even something that appeared after the plan was made.
        if let Err(e) = std::fs::create_dir(&skill.folder) {
            return Err(if e.kind() == std::io::ErrorKind::AlreadyExists {
                Error::Exists {
                    path: skill.folder.clone(),
                }
            } else {
                Error::io(&skill.folder)(e)
            });
        }
        // The document appears whole: written beside, then renamed.
        let file = skill.folder.join(skillhost_skill::layout::SKILL_FILE);
        let staging = skill.folder.join(".SKILL.md.learning");
        std::fs::write(&staging, &skill.content).map_err(Error::io(&staging))?;
        std::fs::rename(&staging, &file).map_err(Error::io(&file))?;
        written.push(file);
    }
    Ok(written)
}

/// A tool name as quoted in text: no backticks, no invisible character
/// (a session log is not to smuggle text into a skill), at most
/// [`MAX_TOOL_CHARS`] characters.
fn shown(tool: &str) -> String {
    let clean: String = tool
        .chars()
        .filter(|&c| !skillhost_skill::invisible::is_invisible(c))
        .map(|c| if c == '`' || c.is_control() { '\'' } else { c })
        .collect();
    if clean.chars().count() <= MAX_TOOL_CHARS {
        return clean;
    }
    let mut cut: String = clean.chars().take(MAX_TOOL_CHARS - 1).collect();
    cut.push('…');
    cut
}

/// The steps in a sentence: `Run \`git add\`, edit a .rs file, then call
/// \`search\``.
fn sequence(tools: &[String]) -> String {
    let phrases: Vec<String> = tools.iter().map(|t| parse(t).phrase(shown)).collect();
    let text = match phrases.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{}, then {last}", rest.join(", ")),
        None => String::new(),
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => text,
    }
}

/// A YAML double-quoted scalar (JSON's escapes are YAML's).
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".to_string())
}

/// The `SKILL.md` of `pattern` under `name`.
pub fn skill_md(pattern: &Pattern, name: &str) -> String {
    let steps = sequence(&pattern.tools);
    let description = format!(
        "{steps}: a sequence repeated in {} sessions.",
        pattern.frequency
    );
    let when = format!("When a task needs these steps: {steps}.");
    let mut out = format!(
        "---\nname: {name}\ndescription: {}\nwhen_to_use: {}\nversion: \"{VERSION}\"\npinned: false\n\
         metadata:\n  generated-by: skillhost learn\n  sessions: \"{}\"\n  confidence: \"{:.2}\"\n  \
         fingerprint: \"{}\"\n---\n# {name}\n\n\
         This sequence of {} tool calls recurred in {} separate sessions. Follow the steps in \
         order, checking each result before the next call.\n\n## Steps\n\n",
        quoted(&description),
        quoted(&when),
        pattern.frequency,
        pattern.confidence,
        pattern.fingerprint,
        pattern.tools.len(),
        pattern.frequency,
    );
    for (i, label) in pattern.tools.iter().enumerate() {
        let step = parse(label);
        let mut phrase = step.phrase(shown);
        if step.detail.is_some() {
            phrase.push_str(&format!(" (with `{}`)", shown(&step.tool)));
        }
        let phrase: String = match phrase.chars().next() {
            Some(first) => first.to_uppercase().chain(phrase.chars().skip(1)).collect(),
            None => phrase,
        };
        out.push_str(&format!("{}. {phrase}.\n", i + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use skillhost_skill::frontmatter::parse_document;

    fn pattern(tools: &[&str], frequency: usize, confidence: f64) -> Pattern {
        let tools: Vec<String> = tools.iter().map(|t| t.to_string()).collect();
        Pattern {
            fingerprint: skillhost_skill::digest::sha256(tools.join("\n").as_bytes()),
            tools,
            sessions: (0..frequency).map(|i| format!("s{i}")).collect(),
            frequency,
            similarity: 0.0,
            confidence,
        }
    }

    #[test]
    fn a_learned_skill_has_the_fields_and_one_step_per_tool() {
        let p = pattern(&["search_papers", "download_paper", "rag_search"], 4, 1.0);
        let text = skill_md(&p, "search-download-rag");
        let doc = parse_document(text.as_bytes(), "search-download-rag").unwrap();
        let f = &doc.frontmatter;
        assert_eq!(f.name, "search-download-rag");
        assert_eq!(
            f.description.as_deref(),
            Some(
                "Call `search_papers`, call `download_paper`, then call `rag_search`: a sequence \
                 repeated in 4 sessions."
            )
        );
        assert!(
            f.when_to_use
                .as_deref()
                .unwrap()
                .starts_with("When a task needs these steps: Call `search_papers`")
        );
        assert_eq!(f.version.as_deref(), Some("0.1.0"));
        assert!(!f.pinned);
        let steps: Vec<&str> = doc
            .body
            .lines()
            .filter(|l| l.contains(". Call `"))
            .collect();
        assert_eq!(
            steps,
            [
                "1. Call `search_papers`.",
                "2. Call `download_paper`.",
                "3. Call `rag_search`."
            ]
        );
    }

    #[test]
    fn hostile_tool_names_stay_inside_their_quotes() {
        let p = pattern(&["a\": x\n---", "b`c", &"long".repeat(100)], 3, 1.0);
        let text = skill_md(&p, "a-b-long");
        let doc = parse_document(text.as_bytes(), "a-b-long").unwrap();
        assert_eq!(doc.frontmatter.name, "a-b-long");
        assert!(doc.frontmatter.description.unwrap().contains("a\": x"));
        assert!(doc.body.contains("2. Call `b'c`."));
        assert!(doc.body.lines().all(|l| l.chars().count() < 200));
        let p = pattern(&["read\u{E0069}\u{200B}", "edit"], 3, 1.0);
        let text = skill_md(&p, "read-edit");
        assert!(
            !text.chars().any(skillhost_skill::invisible::is_invisible),
            "{text:?}"
        );
    }

    #[test]
    fn plan_skips_low_confidence_and_existing_names_and_numbers_collisions() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("read-edit-3")).unwrap();
        let patterns = [
            pattern(&["read_a", "edit_a"], 5, 1.0),
            pattern(&["read_b", "edit_b"], 4, 0.9),
            pattern(&["read_c", "edit_c"], 4, 0.8),
            pattern(&["grep", "sed"], 3, 0.7),
            pattern(&["weak", "link"], 3, 0.2),
        ];
        let existing: BTreeSet<String> = ["grep-sed".to_string()].into();
        let planned = plan(&patterns, root.path(), &existing, DEFAULT_MIN_CONFIDENCE);
        let summary: Vec<(&str, bool)> = planned
            .iter()
            .map(|p| (p.name.as_str(), p.skipped.is_none()))
            .collect();
        assert_eq!(
            summary,
            [
                ("read-edit", true),
                ("read-edit-2", true),
                ("read-edit-3", false),
                ("grep-sed", false)
            ]
        );
    }

    #[test]
    fn writing_creates_folders_whole_and_never_replaces_one() {
        let root = tempfile::tempdir().unwrap();
        let patterns = [pattern(&["read_a", "edit_a"], 5, 1.0)];
        let planned = plan(&patterns, root.path(), &BTreeSet::new(), 0.5);
        let written = write(&planned, root.path()).unwrap();
        assert_eq!(written, [root.path().join("read-edit/SKILL.md")]);
        assert_eq!(
            std::fs::read_to_string(&written[0]).unwrap(),
            planned[0].content
        );
        let entries: Vec<_> = std::fs::read_dir(root.path().join("read-edit"))
            .unwrap()
            .collect();
        assert_eq!(entries.len(), 1, "no staging file is left behind");
        // Planned before the folder existed: still not overwritten.
        std::fs::write(&written[0], "mine").unwrap();
        assert!(matches!(
            write(&planned, root.path()),
            Err(Error::Exists { .. })
        ));
        assert_eq!(std::fs::read_to_string(&written[0]).unwrap(), "mine");
        assert_eq!(std::fs::read_dir(root.path()).unwrap().count(), 1);
    }

    /// A recorded session's log line for one tool call.
    fn call(tool: &str, input: serde_json::Value) -> String {
        serde_json::json!({"type": "tool-call", "tool": tool, "input": input}).to_string()
    }

    #[test]
    fn sessions_mixing_two_workflows_yield_both_named_by_what_they_do() {
        use serde_json::json;
        let git = [
            call("Bash", json!({"command": "git status"})),
            call("Bash", json!({"command": "git add -A"})),
            call("Bash", json!({"command": "git commit -m 'wip'"})),
            call("Bash", json!({"command": "git push origin main"})),
        ];
        let test = [
            call("Read", json!({"file_path": "/p/src/lib.rs"})),
            call(
                "Edit",
                json!({"file_path": "/p/src/lib.rs", "old_string": "a"}),
            ),
            call("Bash", json!({"command": "cargo test --workspace"})),
        ];
        let lister = call("Bash", json!({"command": "ls -la"}));
        let dir = tempfile::tempdir().unwrap();
        let store = crate::UsageStore::open(&dir.path().join("usage.db")).unwrap();
        let mut logs = Vec::new();
        for i in 0..4 {
            // Each session does both workflows, in a different order, with
            // a loop of one command and a different file between them.
            let noise = call("Grep", json!({"pattern": format!("needle {i}")}));
            let mut lines: Vec<String> = Vec::new();
            let (first, second): (&[String], &[String]) = if i % 2 == 0 {
                (&git, &test)
            } else {
                (&test, &git)
            };
            lines.extend_from_slice(first);
            lines.push(noise);
            lines.extend(std::iter::repeat_n(lister.clone(), 4));
            lines.extend_from_slice(second);
            let path = dir.path().join(format!("session-{i}.jsonl"));
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            logs.push(path);
        }
        let (sessions, warnings) = crate::record::sessions_from_files(&store, &logs).unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        let found = crate::patterns::detect_in(&sessions, &Default::default());
        let planned = plan(&found, dir.path(), &BTreeSet::new(), DEFAULT_MIN_CONFIDENCE);
        let names: Vec<&str> = planned.iter().map(|p| p.name.as_str()).collect();
        assert!(names.contains(&"git-status-add-commit-push"), "{names:?}");
        assert!(names.contains(&"read-rs-edit-cargo-test"), "{names:?}");
        assert!(
            !names.iter().any(|n| *n == "ls" || n.contains("bash")),
            "no loop of one command, no name of a tool: {names:?}"
        );
        let git = planned
            .iter()
            .find(|p| p.name == "git-status-add-commit-push")
            .unwrap();
        let doc = parse_document(git.content.as_bytes(), &git.name).unwrap();
        assert_eq!(
            doc.frontmatter.description.as_deref(),
            Some(
                "Run `git status`, run `git add`, run `git commit`, then run `git push`: a \
                 sequence repeated in 4 sessions."
            )
        );
        assert!(
            doc.body.contains("1. Run `git status` (with `Bash`)."),
            "{}",
            doc.body
        );
    }
}
