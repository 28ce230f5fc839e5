//! `skillhost catalog --json` against the text catalog, whole process.
//!
//! Both are this binary run as a child, `catalog --root TREE --no-bundled`
//! with and without `--json`, on a generated tree, interleaved (the order
//! alternating each round), timed from spawn to exit with the output read.
//! Each run's output is checked to list every skill, outside the timing. The
//! ratio json/text is what `--json` costs on top of the catalog itself; the
//! target is 1.2.

use super::{generate_tree, median, ms, ratio, timed};
use anyhow::{Context as _, Result, anyhow};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// The ratio json/text the issue sets as the target.
const TARGET: f64 = 1.2;
/// What the ratio compares.
const COMPARES: &str = "whole process: `skillhost catalog --root TREE --no-bundled --json` \
                        against the same without --json";

/// Every timing of one run.
#[derive(Debug, Clone, Default)]
pub struct CatalogJsonReport {
    skills: usize,
    rounds: usize,
    text: Vec<Duration>,
    json: Vec<Duration>,
}

impl CatalogJsonReport {
    fn ratio(&self) -> f64 {
        ratio(median(&self.json), median(&self.text))
    }

    /// The human-readable report; the ratio line comes last.
    pub fn render(&self) -> String {
        format!(
            "skillhost-bench catalog-json: {} skills, {} rounds interleaved, medians, whole process\n\
             text  catalog --root TREE --no-bundled         {:>9.3} ms\n\
             json  catalog --root TREE --no-bundled --json  {:>9.3} ms\n\
             ratio json/text {:.2} (target <= {TARGET}): {COMPARES}\n",
            self.skills,
            self.rounds,
            ms(median(&self.text)),
            ms(median(&self.json)),
            self.ratio(),
        )
    }

    /// The JSON of `skillhost-bench catalog-json --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "skills": self.skills,
            "rounds": self.rounds,
            "text_ms": ms(median(&self.text)),
            "json_ms": ms(median(&self.json)),
            "ratio_json_text": self.ratio(),
            "target": TARGET,
            "compares": COMPARES,
        })
    }
}

/// The skill count a text catalog ends with (`N skill(s)`).
fn text_count(stdout: &[u8]) -> Option<usize> {
    let text = std::str::from_utf8(stdout).ok()?;
    let last = text.lines().rev().find(|l| !l.trim().is_empty())?;
    last.split_once(" skill(s)")?.0.trim().parse().ok()
}

/// How many skills a JSON catalog lists.
fn json_count(stdout: &[u8]) -> Option<usize> {
    let value: serde_json::Value = serde_json::from_slice(stdout).ok()?;
    value.get("skills")?.as_array().map(Vec::len)
}

/// Runs `catalog` on `root` once, timed from spawn to exit, and checks that
/// it listed `skills` skills.
fn catalog_once(exe: &Path, root: &Path, json: bool, skills: usize) -> Result<Duration> {
    let mut command = Command::new(exe);
    command
        .args(["catalog", "--no-bundled", "--root"])
        .arg(root)
        .args(json.then_some("--json"))
        // No project roots or configuration of the caller's folder.
        .current_dir(root)
        .stdin(Stdio::null());
    let (elapsed, out) = timed(|| command.output());
    let out: Output = out.context("cannot run skillhost catalog")?;
    let which = if json { "catalog --json" } else { "catalog" };
    anyhow::ensure!(
        out.status.success(),
        "bench: {which} failed: {}",
        String::from_utf8_lossy(&out.stderr).trim()
    );
    let found = if json {
        json_count(&out.stdout)
    } else {
        text_count(&out.stdout)
    };
    let found = found.ok_or_else(|| anyhow!("bench: {which} printed no skill count"))?;
    super::check(found, skills, which)?;
    Ok(elapsed)
}

/// Runs the benchmark on a fresh temporary tree of `skills` skills.
pub fn run(skills: usize, rounds: usize) -> Result<CatalogJsonReport> {
    let exe = super::product()?;
    let dir = tempfile::tempdir().context("cannot create a temporary folder")?;
    let root = dir.path().join("skills");
    generate_tree(&root, skills)?;
    let root = std::fs::canonicalize(&root).context("cannot resolve the generated tree")?;
    // Once each, untimed: the component compiled into the cache, the tree
    // in the page cache.
    catalog_once(&exe, &root, false, skills)?;
    catalog_once(&exe, &root, true, skills)?;
    let mut report = CatalogJsonReport {
        skills,
        rounds,
        ..Default::default()
    };
    for round in 0..rounds {
        let json_first = !round.is_multiple_of(2);
        for json in [json_first, !json_first] {
            let elapsed = catalog_once(&exe, &root, json, skills)?;
            if json {
                report.json.push(elapsed);
            } else {
                report.text.push(elapsed);
            }
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_skill_count_is_read_from_either_catalog() {
        assert_eq!(text_count(b"pdf  Read PDFs\n\n1 skill(s)\n"), Some(1));
        assert_eq!(
            text_count(b"a  x\n\n2 skill(s) (incomplete: some sources could not be read)\n"),
            Some(2)
        );
        assert_eq!(text_count(b"no count here\n"), None);
        assert_eq!(
            json_count(br#"{"complete": true, "skills": [{"name": "a"}, {"name": "b"}]}"#),
            Some(2)
        );
        assert_eq!(json_count(b"not json"), None);
    }

    #[test]
    fn the_report_gives_medians_and_the_json_to_text_ratio_with_what_it_compares() {
        let report = CatalogJsonReport {
            skills: 10,
            rounds: 3,
            text: [10, 30, 20].map(Duration::from_millis).to_vec(),
            json: [24, 60, 30].map(Duration::from_millis).to_vec(),
        };
        let json = report.to_json();
        assert_eq!(json["text_ms"], 20.0);
        assert_eq!(json["json_ms"], 30.0);
        assert_eq!(json["ratio_json_text"], 1.5);
        assert_eq!(json["target"], TARGET);
        assert!(
            json["compares"]
                .as_str()
                .is_some_and(|c| c.contains("--json"))
        );
        let text = report.render();
        assert!(
            text.lines()
                .last()
                .is_some_and(|l| l.starts_with("ratio json/text 1.50")),
            "{text}"
        );
    }
}
