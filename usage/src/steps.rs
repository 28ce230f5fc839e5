//! What one tool call did, as a step of a learned skill: the tool and,
//! when the session log says, what it was called on — the command a shell
//! tool ran (`git add`), the kind of file a file tool touched (`.rs`).
//!
//! A model picks a skill by what it does, so a learned skill is named and
//! described by these (`git-status-add-commit-push`, "Run `git status`,
//! `git add`, …"), not by its tools' names (`bash-bash-bash-bash`). Only
//! the stable part of an argument is kept: a command's program and
//! subcommand, a file's extension, never a path, a message or a query,
//! which differ every time and would keep a workflow from repeating.
//!
//! A step is carried as one label, `Tool($command)` or `Tool(file kind)`
//! (`Bash($git add)`, `Edit(.rs)`), so pattern detection compares whole
//! steps.

use serde_json::Value;

/// Most characters of a step's detail.
const MAX_DETAIL_CHARS: usize = 40;

/// Argument keys holding a command a shell tool ran.
const COMMAND_KEYS: &[&str] = &["command", "cmd"];
/// Argument keys holding the file a file tool worked on.
const FILE_KEYS: &[&str] = &["file_path", "path", "file", "notebook_path"];

/// What a step was called on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Detail {
    /// A command: its program and subcommand (`git add`).
    Command(String),
    /// A file: its extension with the dot (`.rs`), or its name when it
    /// has none (`Makefile`).
    File(String),
}

/// One step: a tool, and what it was called on when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The tool's name.
    pub tool: String,
    /// What it was called on.
    pub detail: Option<Detail>,
}

/// The label of a call of `tool` with `arguments` (a tool-call event's
/// `input`, `arguments` or `args` object): `Tool(detail)`, or the tool alone.
pub fn label(tool: &str, arguments: Option<&Value>) -> String {
    match arguments.and_then(detail_of) {
        Some(Detail::Command(c)) => format!("{tool}(${c})"),
        Some(Detail::File(f)) => format!("{tool}({f})"),
        None => tool.to_string(),
    }
}

/// The detail a call's arguments give, if any.
fn detail_of(arguments: &Value) -> Option<Detail> {
    let text = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| arguments.get(*k).and_then(Value::as_str))
    };
    if let Some(command) = text(COMMAND_KEYS) {
        let words: Vec<&str> = command
            .split_whitespace()
            .take(2)
            .take_while(|w| is_word(w))
            .collect();
        return (!words.is_empty()).then(|| Detail::Command(bounded(&words.join(" "))));
    }
    let file = text(FILE_KEYS)?;
    let name = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let detail = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && is_word(ext) => format!(".{ext}"),
        _ if is_word(name) => name.to_string(),
        _ => return None,
    };
    Some(Detail::File(bounded(&detail)))
}

/// A word a name may be made of: ASCII letters, digits, `-`, `_`.
fn is_word(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

fn bounded(text: &str) -> String {
    text.chars().take(MAX_DETAIL_CHARS).collect()
}

/// The step a label stands for.
pub fn parse(label: &str) -> Step {
    let parsed = label
        .strip_suffix(')')
        .and_then(|rest| rest.split_once('('))
        .filter(|(tool, _)| !tool.is_empty());
    match parsed {
        Some((tool, detail)) => Step {
            tool: tool.to_string(),
            detail: Some(match detail.strip_prefix('$') {
                Some(command) => Detail::Command(command.to_string()),
                None => Detail::File(detail.to_string()),
            }),
        },
        None => Step {
            tool: label.to_string(),
            detail: None,
        },
    }
}

impl Step {
    /// The words this step gives a name: a command's own words (the shell
    /// tool says nothing), a file tool's first word and the file's kind,
    /// else the tool's first word.
    pub fn words(&self, first_word: impl Fn(&str) -> String) -> Vec<String> {
        let lower = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_ascii_lowercase)
                .collect()
        };
        match &self.detail {
            Some(Detail::Command(command)) => lower(command),
            Some(Detail::File(kind)) => {
                let mut words = vec![first_word(&self.tool)];
                words.extend(lower(kind));
                words
            }
            None => vec![first_word(&self.tool)],
        }
    }

    /// The step in a sentence: "run `git add`", "edit a .rs file", "call
    /// `search`" (`shown` quotes foreign text safely).
    pub fn phrase(&self, shown: impl Fn(&str) -> String) -> String {
        match &self.detail {
            Some(Detail::Command(command)) => format!("run `{}`", shown(command)),
            Some(Detail::File(kind)) if kind.starts_with('.') => format!(
                "{} a {} file",
                shown(&self.tool).to_lowercase(),
                shown(kind)
            ),
            Some(Detail::File(name)) => {
                format!("{} `{}`", shown(&self.tool).to_lowercase(), shown(name))
            }
            None => format!("call `{}`", shown(&self.tool)),
        }
    }
}

/// Whether a sequence of labels is a loop of one step (`Bash, Bash, Bash`
/// or the same command again and again), which is no skill.
pub fn is_trivial(labels: &[impl AsRef<str>]) -> bool {
    let mut distinct: Vec<&str> = labels.iter().map(AsRef::as_ref).collect();
    distinct.sort_unstable();
    distinct.dedup();
    distinct.len() <= 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_label_keeps_the_stable_part_of_a_call() {
        let input = json!({"command": "git commit -m 'fix the build'"});
        assert_eq!(label("Bash", Some(&input)), "Bash($git commit)");
        let input = json!({"file_path": "/home/me/src/main.rs", "old_string": "x"});
        assert_eq!(label("Edit", Some(&input)), "Edit(.rs)");
        assert_eq!(
            label("Read", Some(&json!({"file_path": "Makefile"}))),
            "Read(Makefile)"
        );
        assert_eq!(label("Grep", Some(&json!({"pattern": "TODO"}))), "Grep");
        assert_eq!(label("search", None), "search");
        // Nothing but words passes: no quote, no path, no newline.
        assert_eq!(
            label("Bash", Some(&json!({"command": "./run.sh --x"}))),
            "Bash"
        );
        assert_eq!(
            label("Bash", Some(&json!({"command": "echo\n`rm -rf`"}))),
            "Bash($echo)"
        );
    }

    #[test]
    fn labels_parse_back_into_steps() {
        assert_eq!(
            parse("Bash($git add)"),
            Step {
                tool: "Bash".into(),
                detail: Some(Detail::Command("git add".into()))
            }
        );
        assert_eq!(parse("Edit(.rs)").detail, Some(Detail::File(".rs".into())));
        assert_eq!(parse("mcp__server__tool").detail, None);
        assert_eq!(parse("(odd)").tool, "(odd)");
    }

    #[test]
    fn one_step_repeated_is_a_trivial_loop() {
        assert!(is_trivial(&["Bash", "Bash", "Bash"]));
        assert!(is_trivial(&["Bash($ls)", "Bash($ls)"]));
        assert!(!is_trivial(&["Bash($git add)", "Bash($git commit)"]));
        assert!(!is_trivial(&["Read", "Edit"]));
    }
}
