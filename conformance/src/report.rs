//! The outcome of a run: one line per check, as text, JSON or JUnit XML.

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;

/// How a check came out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// The provider does what the contract asks.
    Pass,
    /// It does not; the detail says how.
    Fail,
    /// The check does not apply to this provider (or an earlier failure
    /// made it impossible); the detail says why.
    Skip,
}

impl Status {
    /// `pass`, `fail` or `skip`.
    pub fn as_str(&self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Skip => "skip",
        }
    }
}

/// One check's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Check {
    /// A stable identifier (`init`, `delta`, ...).
    pub id: &'static str,
    /// How it came out.
    pub status: Status,
    /// What was found, or why it does not apply.
    pub detail: String,
    /// Milliseconds the check took.
    pub ms: u64,
}

impl Check {
    /// A passed check.
    pub fn pass(id: &'static str, detail: impl Into<String>) -> Check {
        Check::new(id, Status::Pass, detail)
    }

    /// A failed check.
    pub fn fail(id: &'static str, detail: impl Into<String>) -> Check {
        Check::new(id, Status::Fail, detail)
    }

    /// A check that does not apply.
    pub fn skip(id: &'static str, detail: impl Into<String>) -> Check {
        Check::new(id, Status::Skip, detail)
    }

    /// Pass when `problems` is empty (with `passed` as the detail), else
    /// fail listing them.
    pub fn from_problems(
        id: &'static str,
        problems: &[String],
        passed: impl Into<String>,
    ) -> Check {
        if problems.is_empty() {
            Check::pass(id, passed)
        } else {
            Check::fail(id, summarise(problems))
        }
    }

    fn new(id: &'static str, status: Status, detail: impl Into<String>) -> Check {
        Check {
            id,
            status,
            detail: detail.into(),
            ms: 0,
        }
    }

    /// The check with its duration set.
    pub fn took(mut self, ms: u64) -> Check {
        self.ms = ms;
        self
    }
}

/// Most problems listed in one check's detail; the rest are counted.
const LISTED: usize = 8;

/// `problems` joined with `; `, the first [`LISTED`] of them.
pub fn summarise(problems: &[String]) -> String {
    let mut out = problems
        .iter()
        .take(LISTED)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > LISTED {
        let _ = write!(out, "; and {} more", problems.len() - LISTED);
    }
    out
}

/// The component a report is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// Its file.
    pub path: PathBuf,
    /// The 64 hex digits of its SHA-256.
    pub sha256: String,
    /// The contract version it exports (`skillhost:provider@0.1.0`), when
    /// it exports one this host runs.
    pub wit: Option<String>,
}

/// Every check of one run, in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// What was checked.
    pub component: Component,
    /// The checks.
    pub checks: Vec<Check>,
}

impl Report {
    /// The check `id`, if it ran.
    pub fn get(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    fn count(&self, status: Status) -> usize {
        self.checks.iter().filter(|c| c.status == status).count()
    }

    /// Checks passed.
    pub fn passed(&self) -> usize {
        self.count(Status::Pass)
    }

    /// Checks failed.
    pub fn failed(&self) -> usize {
        self.count(Status::Fail)
    }

    /// Checks skipped.
    pub fn skipped(&self) -> usize {
        self.count(Status::Skip)
    }

    /// Whether no check failed.
    pub fn is_passed(&self) -> bool {
        self.failed() == 0
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.status == Status::Fail)
    }

    /// Panics, listing every failed check with its reason, unless all
    /// passed or were skipped: the one line a provider's own test needs.
    #[track_caller]
    pub fn assert_passed(&self) {
        if self.is_passed() {
            return;
        }
        let mut message = format!(
            "{} failed {} of {} conformance checks:",
            self.component.path.display(),
            self.failed(),
            self.checks.len()
        );
        for check in self.failures() {
            let _ = write!(message, "\n  {}: {}", check.id, check.detail);
        }
        panic!("{message}");
    }

    /// One line per check (`pass  init  ...`), then a summary line.
    pub fn text(&self) -> String {
        let width = self.checks.iter().map(|c| c.id.len()).max().unwrap_or(0);
        let mut out = String::new();
        for c in &self.checks {
            let _ = writeln!(
                out,
                "{}  {:width$}  {} ({} ms)",
                c.status.as_str(),
                c.id,
                one_line(&c.detail),
                c.ms
            );
        }
        let _ = writeln!(
            out,
            "{}: {} passed, {} failed, {} skipped",
            self.component.path.display(),
            self.passed(),
            self.failed(),
            self.skipped()
        );
        out
    }

    /// `{"component": {"path", "sha256", "wit"}, "checks": [{"id",
    /// "status", "detail", "ms"}], "passed", "failed", "skipped"}`.
    pub fn json(&self) -> Value {
        json!({
            "component": {
                "path": self.component.path.display().to_string(),
                "sha256": self.component.sha256,
                "wit": self.component.wit,
            },
            "checks": self.checks.iter().map(|c| json!({
                "id": c.id,
                "status": c.status.as_str(),
                "detail": c.detail,
                "ms": c.ms,
            })).collect::<Vec<_>>(),
            "passed": self.passed(),
            "failed": self.failed(),
            "skipped": self.skipped(),
        })
    }

    /// The report as JUnit XML: one test suite named after the component,
    /// one test case per check (`failure` or `skipped` with the detail).
    pub fn junit(&self) -> String {
        let seconds = |ms: u64| format!("{:.3}", ms as f64 / 1000.0);
        let total: u64 = self.checks.iter().map(|c| c.ms).sum();
        let name = xml(&self.component.path.display().to_string());
        let counts = format!(
            "tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\" time=\"{}\"",
            self.checks.len(),
            self.failed(),
            self.skipped(),
            seconds(total)
        );
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(out, "<testsuites name=\"skillhost conformance\" {counts}>");
        let _ = writeln!(out, "  <testsuite name=\"{name}\" {counts}>");
        for c in &self.checks {
            let _ = write!(
                out,
                "    <testcase classname=\"skillhost.conformance\" name=\"{}\" time=\"{}\"",
                xml(c.id),
                seconds(c.ms)
            );
            let detail = xml(&c.detail);
            match c.status {
                Status::Pass => {
                    let _ = writeln!(
                        out,
                        ">\n      <system-out>{detail}</system-out>\n    </testcase>"
                    );
                }
                Status::Fail => {
                    let _ = writeln!(
                        out,
                        ">\n      <failure message=\"{detail}\">{detail}</failure>\n    </testcase>"
                    );
                }
                Status::Skip => {
                    let _ = writeln!(
                        out,
                        ">\n      <skipped message=\"{detail}\"/>\n    </testcase>"
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n</testsuites>\n");
        out
    }
}

/// `text` on one line: a provider's words cannot forge report lines.
fn one_line(text: &str) -> String {
    text.chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// `text` escaped for XML text and attributes; characters XML 1.0 cannot
/// hold become U+FFFD.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
#[path = "report_tests.rs"]
mod tests;
