//! Invoking a skill: resolution (aliases), permissions, substitution, and
//! inline text or a fork plan for the embedder's runner.

use super::activation::is_active;
use crate::error::Error;
use crate::model::{Catalog, Skill};
use crate::registry::Registry;
use skillhost_skill::frontmatter::Context;
use std::collections::BTreeSet;

/// Most steps a forked sub-agent may take.
pub const MAX_FORK_STEPS: u32 = 10;
/// Steps a fork gets when the caller does not say.
pub const DEFAULT_FORK_STEPS: u32 = 5;

/// Who asks for the skill.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// The user (a slash command).
    User,
    /// The model (the Skill tool).
    Model,
}

/// A request to run a skill.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The name or an alias.
    pub name: &'a str,
    /// The arguments, already split.
    pub args: &'a [String],
    /// Who asks.
    pub caller: Caller,
    /// The session, for `${SESSION_ID}`.
    pub session_id: &'a str,
    /// Steps a fork may take (capped at [`MAX_FORK_STEPS`]).
    pub max_steps: Option<u32>,
}

/// Most of a skill's files an invocation names; the rest are counted. A
/// skill's scripts and references are usually a handful, and a model
/// given a few hundred paths reads none of them.
pub const MAX_NAMED_FILES: usize = 50;

/// Where a skill lives, as an invocation hands it over: its relative paths
/// (`python scripts/recalc.py`) mean nothing without the folder they are
/// relative to, and a model told which files exist reads the right one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Place {
    /// The folder the skill's relative paths resolve against, as the host
    /// knows it (what `${CLAUDE_SKILL_DIR}` becomes).
    pub base: String,
    /// The skill's other files, relative to `base`, sorted (at most
    /// [`MAX_NAMED_FILES`]).
    pub files: Vec<String>,
    /// Files beyond those named.
    pub more_files: usize,
}

impl Place {
    fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "base": self.base,
            "files": self.files,
            "more_files": self.more_files,
        })
    }
}

/// What the embedder's runner executes for a `fork` skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForkPlan {
    /// The skill's name.
    pub skill: String,
    /// The expanded body: the sub-agent's prompt.
    pub prompt: String,
    /// Where the skill lives: the sub-agent needs its folder and files as
    /// much as an inline reader does.
    pub place: Place,
    /// Tools the sub-agent may use (empty: no restriction).
    pub allowed_tools: Vec<String>,
    /// Whether those tools count as pre-approved (run without asking): a
    /// remote skill's only once the user approved it as it is now
    /// (`skillhost approve`).
    pub allowed_tools_approved: bool,
    /// The model to use, if the skill says.
    pub model: Option<String>,
    /// The effort to use, if the skill says.
    pub effort: Option<String>,
    /// The agent type, if the skill says.
    pub agent: Option<String>,
    /// Most steps the sub-agent may take.
    pub max_steps: u32,
}

impl ForkPlan {
    /// The plan as JSON (`skillhost invoke --json`).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "context": "fork",
            "skill": self.skill,
            "prompt": self.prompt,
            "allowed_tools": self.allowed_tools,
            "allowed_tools_approved": self.allowed_tools_approved,
            "model": self.model,
            "effort": self.effort,
            "agent": self.agent,
            "max_steps": self.max_steps,
            "base": self.place.base,
            "files": self.place.files,
            "more_files": self.place.more_files,
        })
    }
}

/// The result of an invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invocation {
    /// The expanded body, to join the conversation.
    Inline {
        /// The skill's name.
        skill: String,
        /// Its description, for the title of [`Invocation::message`].
        description: Option<String>,
        /// The expanded body.
        text: String,
        /// Where the skill lives.
        place: Place,
    },
    /// A sub-agent to run.
    Fork(ForkPlan),
}

impl Invocation {
    /// The invocation as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Invocation::Inline {
                skill, text, place, ..
            } => {
                let mut value = serde_json::json!({
                    "context": "inline",
                    "skill": skill,
                    "text": text,
                    "message": self.message(str::to_string),
                });
                if let (Some(out), serde_json::Value::Object(more)) =
                    (value.as_object_mut(), place.to_json())
                {
                    out.extend(more);
                }
                value
            }
            Invocation::Fork(plan) => plan.to_json(),
        }
    }

    /// What the caller is handed, as seed 001 and Claude Code frame an
    /// inline skill: a title with the description, the base directory, the
    /// skill's files (each as `file` writes a relative path: itself in the
    /// CLI, a `skill://` URI over MCP), then the expanded body. A fork
    /// plan's message is the plan as indented JSON.
    pub fn message(&self, file: impl Fn(&str) -> String) -> String {
        let Invocation::Inline {
            skill,
            description,
            text,
            place,
        } = self
        else {
            let Invocation::Fork(plan) = self else {
                return String::new();
            };
            return serde_json::to_string_pretty(&plan.to_json())
                .unwrap_or_else(|e| format!("the fork plan could not be written: {e}"));
        };
        let mut out = format!("# Skill: {skill}");
        if let Some(d) = description
            .as_deref()
            .map(one_line)
            .filter(|d| !d.is_empty())
        {
            out.push_str(&format!(" ({d})"));
        }
        out.push_str(&format!("\n\nBase directory: {}\n", place.base));
        if !place.files.is_empty() {
            out.push_str("Files:\n");
            for path in &place.files {
                out.push_str(&format!("- {}\n", file(path)));
            }
            if place.more_files > 0 {
                out.push_str(&format!("- (and {} more)\n", place.more_files));
            }
        }
        out.push('\n');
        out.push_str(text);
        out
    }
}

/// A description as one line of at most 250 characters, safe to show.
fn one_line(text: &str) -> String {
    let flat: Vec<&str> = text.split_whitespace().collect();
    let flat = crate::text::clean(&flat.join(" "));
    match flat.char_indices().nth(250) {
        Some((end, _)) => format!("{}…", &flat[..end]),
        None => flat,
    }
}

/// Where `skill` lives: its base and the files its provider lists now (a
/// listing that fails names no file; the invocation still goes out).
fn place_of(registry: &Registry, skill: &Skill) -> Place {
    let document = document_of(skill);
    let mut files: Vec<String> = match registry.list_resources_of(skill) {
        Ok(resources) => resources
            .into_iter()
            .filter(|r| Some(r.path.as_str()) != document.as_deref())
            .filter(|r| !matches!(r.path.as_str(), "SKILL.md" | "skill.md"))
            .map(|r| crate::text::clean(&r.path))
            .collect(),
        Err(e) => {
            tracing::warn!(skill = %skill.name(), "its files could not be listed: {e}");
            Vec::new()
        }
    };
    files.sort();
    let more_files = files.len().saturating_sub(MAX_NAMED_FILES);
    files.truncate(MAX_NAMED_FILES);
    Place {
        base: skill.base.to_string(),
        files,
        more_files,
    }
}

/// The skill's document relative to its base (`SKILL.md`, or a flat
/// skill's `<name>.md`), which the invocation already is.
fn document_of(skill: &Skill) -> Option<String> {
    let document = skill.path.to_string();
    let base = skill.base.to_string();
    document
        .strip_prefix(base.as_str())
        .and_then(|rest| rest.strip_prefix('/'))
        .map(str::to_string)
}

/// Runs forked skills; the embedder implements it over its agent loop.
pub trait ForkRunner {
    /// Runs `plan` as a sub-agent that may use only `tools`; returns its
    /// final answer.
    fn run(&mut self, plan: &ForkPlan, tools: &[String]) -> Result<String, String>;
}

/// The tools of `available` that `allowed` permits, compared
/// case-insensitively by name (`Bash(git diff:*)` permits `bash`); an empty
/// `allowed` permits everything.
pub fn filter_tools(available: &[String], allowed: &[String]) -> Vec<String> {
    if allowed.is_empty() {
        return available.to_vec();
    }
    let names: BTreeSet<String> = allowed
        .iter()
        .map(|a| a.split('(').next().unwrap_or(a).trim().to_lowercase())
        .collect();
    available
        .iter()
        .filter(|t| names.contains(&t.to_lowercase()))
        .cloned()
        .collect()
}

/// Runs a fork plan through the embedder's runner with only the permitted tools.
pub fn run_fork(
    plan: &ForkPlan,
    available_tools: &[String],
    runner: &mut dyn ForkRunner,
) -> Result<String, Error> {
    let tools = filter_tools(available_tools, &plan.allowed_tools);
    runner.run(plan, &tools).map_err(|message| Error::Refused {
        skill: plan.skill.clone(),
        reason: format!("the fork failed: {message}"),
    })
}

fn may_call(skill: &Skill, caller: Caller) -> Result<(), String> {
    match caller {
        Caller::User if !skill.frontmatter.user_invocable => {
            Err("it is not user-invocable (user-invocable: false)".to_string())
        }
        Caller::Model if !skill.model_invocable() => {
            Err("the model may not invoke it (disable-model-invocation: true)".to_string())
        }
        _ => Ok(()),
    }
}

/// The skills `caller` may invoke, in catalog order: active (a conditional
/// skill not yet activated does not exist for anyone) and permitted. For the
/// user, these are the slash commands.
pub fn invocable<'c>(
    catalog: &'c Catalog,
    activated: &BTreeSet<String>,
    caller: Caller,
) -> Vec<&'c Skill> {
    catalog
        .skills
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| is_active(s, activated) && may_call(s, caller).is_ok())
        .collect()
}

/// Resolves, checks and expands a skill for `request.caller`. Conditional
/// skills not yet activated do not exist for anyone.
pub fn invoke(
    registry: &Registry,
    request: &Request<'_>,
    activated: &BTreeSet<String>,
) -> Result<Invocation, Error> {
    let catalog = registry.snapshot();
    let active: Vec<&Skill> = catalog
        .skills
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| is_active(s, activated))
        .collect();
    let found = active
        .iter()
        .find(|s| s.name() == request.name)
        .or_else(|| {
            active
                .iter()
                .find(|s| s.frontmatter.aliases.iter().any(|a| a == request.name))
        })
        .or_else(|| {
            active
                .iter()
                .find(|s| s.folder().as_deref() == Some(request.name))
        })
        .copied()
        .or_else(|| {
            catalog
                .qualified(request.name)
                .map(AsRef::as_ref)
                .filter(|s| is_active(s, activated))
        });
    let Some(skill) = found else {
        // A conditional skill the caller could use once activated says how
        // to activate it rather than pretending not to exist.
        if let Some(waiting) = catalog.resolve(request.name)
            && !is_active(waiting, activated)
            && may_call(waiting, request.caller).is_ok()
        {
            return Err(Error::NotActive {
                skill: waiting.name().to_string(),
                paths: waiting.frontmatter.paths.clone(),
            });
        }
        let names: Vec<&str> = invocable(&catalog, activated, request.caller)
            .into_iter()
            .map(|s| s.name())
            .collect();
        return Err(Error::UnknownSkill {
            name: request.name.to_string(),
            near: crate::model::near::near(request.name, names.iter().copied())
                .into_iter()
                .map(str::to_string)
                .collect(),
            count: names.len(),
        });
    };
    may_call(skill, request.caller).map_err(|reason| Error::Refused {
        skill: skill.name().to_string(),
        reason,
    })?;
    let doc = registry.load_skill(skill)?;
    let dir = doc.skill.base.to_string();
    // What the model is handed says only what a person reading the skill
    // sees: invisible format characters are dropped from the body too.
    let body = skillhost_skill::invisible::strip(&doc.body);
    let text = substitute(&body, request.args, &dir, request.session_id);
    let f = &doc.skill.frontmatter;
    let place = place_of(registry, &doc.skill);
    Ok(match f.context {
        Context::Inline => Invocation::Inline {
            skill: doc.skill.name().to_string(),
            description: f.description.clone(),
            text,
            place,
        },
        Context::Fork => Invocation::Fork(ForkPlan {
            skill: doc.skill.name().to_string(),
            prompt: text,
            place,
            allowed_tools: f.allowed_tools.clone(),
            allowed_tools_approved: super::approval::tools_approved(registry, doc.skill.name()),
            model: f.model.clone(),
            effort: f.effort.clone(),
            agent: f.agent.clone(),
            max_steps: request
                .max_steps
                .unwrap_or(DEFAULT_FORK_STEPS)
                .clamp(1, MAX_FORK_STEPS),
        }),
    })
}

/// Fills the placeholders of a skill body: `$ARGUMENTS`,
/// `$ARGUMENTS[N]`, `$N`, `${CLAUDE_SKILL_DIR}` / `${SKILL_DIR}` (the
/// skill's folder on the host) and `${CLAUDE_SESSION_ID}` / `${SESSION_ID}`.
/// Missing values become empty. When the body has no argument placeholder
/// but arguments were given, they are appended as `ARGUMENTS: ...`.
pub fn substitute(body: &str, args: &[String], skill_dir: &str, session_id: &str) -> String {
    let all = args.join(" ");
    let nth = |i: usize| args.get(i).map_or("", String::as_str);
    let dir = skill_dir;
    let mut out = String::with_capacity(body.len() + all.len());
    let mut used_arguments = false;
    let mut rest = body;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let tail = &rest[at..];
        let braced = [
            ("${CLAUDE_SKILL_DIR}", dir),
            ("${SKILL_DIR}", dir),
            ("${CLAUDE_SESSION_ID}", session_id),
            ("${SESSION_ID}", session_id),
        ];
        if let Some((token, value)) = braced.iter().find(|(t, _)| tail.starts_with(t)) {
            out.push_str(value);
            rest = &tail[token.len()..];
            continue;
        }
        if let Some(after) = tail.strip_prefix("$ARGUMENTS") {
            used_arguments = true;
            let index = after
                .strip_prefix('[')
                .and_then(|a| a.split_once(']'))
                .and_then(|(n, remaining)| n.parse::<usize>().ok().map(|n| (n, remaining)));
            match index {
                Some((n, remaining)) => {
                    out.push_str(nth(n));
                    rest = remaining;
                }
                None => {
                    out.push_str(&all);
                    rest = after;
                }
            }
            continue;
        }
        let digits = tail[1..].bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 {
            used_arguments = true;
            let n: usize = tail[1..1 + digits].parse().unwrap_or(usize::MAX);
            out.push_str(nth(n));
            rest = &tail[1 + digits..];
            continue;
        }
        out.push('$');
        rest = &tail[1..];
    }
    out.push_str(rest);
    if !used_arguments && !all.is_empty() {
        out.push_str("\n\nARGUMENTS: ");
        out.push_str(&all);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn every_placeholder_is_filled_and_missing_values_are_empty() {
        let text = substitute(
            "All: $ARGUMENTS\nFirst: $0 / $ARGUMENTS[0]\nSecond: $1\nNone: $7 $ARGUMENTS[9]\n\
             Dir: ${CLAUDE_SKILL_DIR} ${SKILL_DIR}\nSession: ${CLAUDE_SESSION_ID} ${SESSION_ID}\nCost: $$5, $HOME",
            &args(&["alpha", "beta"]),
            "/skills/with-vars",
            "s-42",
        );
        assert_eq!(
            text,
            "All: alpha beta\nFirst: alpha / alpha\nSecond: beta\nNone:  \n\
             Dir: /skills/with-vars /skills/with-vars\nSession: s-42 s-42\nCost: $, $HOME"
        );
    }

    #[test]
    fn no_arguments_leave_no_placeholder() {
        let text = substitute("Hello, $ARGUMENTS! ($0)", &[], "/d", "");
        assert_eq!(text, "Hello, ! ()");
    }

    #[test]
    fn arguments_without_a_placeholder_are_appended() {
        let text = substitute("Do the thing.", &args(&["now"]), "/d", "");
        assert_eq!(text, "Do the thing.\n\nARGUMENTS: now");
    }

    #[test]
    fn tools_are_filtered_case_insensitively_by_name() {
        let available = args(&["Bash", "read_file", "Write", "web_search"]);
        assert_eq!(
            filter_tools(&available, &args(&["bash(git diff:*)", "READ_FILE"])),
            ["Bash", "read_file"]
        );
        assert_eq!(filter_tools(&available, &[]), available);
    }
}
