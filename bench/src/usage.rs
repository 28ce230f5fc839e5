//! The usage layer's costs: pattern detection over many sessions, scoring
//! and ranking a large catalog under the listing budget (against the same
//! catalog rendered unranked), and recording one invocation in a real
//! store file (against one durable session-log append).

use super::{ms, percentile, timed};
use anyhow::{Context as _, Result};
use skillhost::Catalog;
use skillhost::model::{Location, Scope, Skill};
use skillhost::session::log::{Event, JsonlLog, SessionLog};
use skillhost::session::render::{RenderOptions, render, render_ranked};
use skillhost_skill::frontmatter::Frontmatter;
use skillhost_usage::UsageStore;
use skillhost_usage::clock::days;
use skillhost_usage::patterns::{self, Options, Session};
use skillhost_usage::score::catalog_scores;
use skillhost_usage::store::{InvocationRecord, Outcome, SkillUsage};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

/// Sessions and calls per session of the detection run.
pub const SESSIONS: usize = 10_000;
/// Calls per generated session.
pub const CALLS: usize = 50;
/// Skills scored and ranked.
pub const SKILLS: usize = 10_000;
/// Invocations recorded.
pub const RECORDS: usize = 1_000;
/// Session logs `learn` reads in its run, and tool calls in each.
pub const LEARN_LOGS: usize = 3;
/// Tool calls per log of the `learn` run.
pub const LEARN_CALLS: usize = 2_000_000;
/// What `learn` may hold at its peak over those logs.
pub const LEARN_TARGET_MIB: u64 = 256;

/// The workflows hidden among the noise of the generated sessions.
const WORKFLOWS: [&[&str]; 5] = [
    &["search_papers", "download_paper", "rag_search"],
    &["read_file", "edit_file", "run_tests", "git_commit"],
    &["list_issues", "get_issue", "create_branch"],
    &[
        "fetch_url",
        "parse_html",
        "extract_links",
        "save_note",
        "summarize",
    ],
    &["query_db", "export_csv"],
];

/// Timings of the usage layer.
#[derive(Debug, Clone, Default)]
pub struct UsageReport {
    /// Detection of patterns over the generated sessions, per round.
    pub detect: Vec<Duration>,
    /// Patterns found, and how many of the hidden workflows were among them.
    pub patterns: (usize, usize),
    /// Scores plus ranked render of the catalog, per round.
    pub ranked: Vec<Duration>,
    /// Unranked render of the same catalog, per round.
    pub unranked: Vec<Duration>,
    /// Recording one invocation.
    pub record: Vec<Duration>,
    /// One durable (`fsync`ed) session-log append.
    pub append: Vec<Duration>,
    /// `skillhost learn --dry-run` over [`LEARN_LOGS`] logs of
    /// [`LEARN_CALLS`] calls: its time, and its peak resident memory (KiB).
    pub learn: Option<(Duration, u64)>,
}

impl UsageReport {
    /// The human-readable report.
    pub fn render(&self) -> String {
        let line = |what: &str, samples: &[Duration]| {
            format!(
                "{what:<46} p50 {:>8.3} ms  p99 {:>8.3} ms\n",
                ms(percentile(samples, 50.0)),
                ms(percentile(samples, 99.0))
            )
        };
        format!(
            "skillhost-bench usage\n{}  found {} pattern(s), {} of the {} hidden workflows\n{}{}  ratio ranked/unranked: {:.2}\n{}{}",
            line(
                &format!("detect patterns, {SESSIONS} sessions x {CALLS} calls"),
                &self.detect
            ),
            self.patterns.0,
            self.patterns.1,
            WORKFLOWS.len(),
            line(
                &format!("score + rank {SKILLS} skills (8,000 budget)"),
                &self.ranked
            ),
            line(
                &format!("unranked render of the same {SKILLS}"),
                &self.unranked
            ),
            ms(percentile(&self.ranked, 50.0)) / ms(percentile(&self.unranked, 50.0)),
            line(
                &format!("record one invocation ({RECORDS} in a row)"),
                &self.record
            ),
            line("one fsynced session-log append, for scale", &self.append),
        ) + &match self.learn {
            Some((elapsed, peak)) => format!(
                "learn --dry-run, {LEARN_LOGS} logs x {LEARN_CALLS} calls (one process)  {:>8.0} ms  \
                 peak RSS {:.0} MiB (target <= {LEARN_TARGET_MIB} MiB)\n",
                ms(elapsed),
                peak as f64 / 1024.0
            ),
            None => String::new(),
        }
    }

    /// The JSON of `skillhost-bench usage --json` (milliseconds).
    pub fn to_json(&self) -> serde_json::Value {
        let figures = |samples: &[Duration]| serde_json::json!({"p50_ms": ms(percentile(samples, 50.0)), "p99_ms": ms(percentile(samples, 99.0))});
        serde_json::json!({
            "detect": figures(&self.detect),
            "sessions": SESSIONS,
            "calls_per_session": CALLS,
            "patterns_found": self.patterns.0,
            "workflows_found": self.patterns.1,
            "score_and_rank": figures(&self.ranked),
            "unranked_render": figures(&self.unranked),
            "skills": SKILLS,
            "record_invocation": figures(&self.record),
            "session_log_append": figures(&self.append),
            "learn": self.learn.map(|(elapsed, peak)| serde_json::json!({
                "logs": LEARN_LOGS,
                "calls_per_log": LEARN_CALLS,
                "ms": ms(elapsed),
                "peak_rss_kib": peak,
                "target_mib": LEARN_TARGET_MIB,
            })),
        })
    }
}

/// A small deterministic generator (SplitMix64), so every run sees the
/// same sessions.
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Sessions of noise from 40 tools, each holding each hidden workflow with
/// a chance of one in five, at a random place (never split).
fn sessions() -> Vec<Session> {
    let mut mix = Mix(14);
    let noise: Vec<String> = (0..40).map(|i| format!("tool_{i:02}")).collect();
    (0..SESSIONS)
        .map(|s| {
            let blocks: Vec<&[&str]> = WORKFLOWS
                .iter()
                .copied()
                .filter(|_| mix.below(5) == 0)
                .collect();
            let hidden: usize = blocks.iter().map(|b| b.len()).sum();
            let mut segments: Vec<Vec<String>> = (0..CALLS - hidden)
                .map(|_| vec![noise[mix.below(noise.len())].clone()])
                .collect();
            for block in blocks {
                let at = mix.below(segments.len() + 1);
                segments.insert(at, block.iter().map(|t| t.to_string()).collect());
            }
            Session {
                id: format!("session-{s:05}"),
                tools: segments.concat(),
            }
        })
        .collect()
}

fn catalog() -> Catalog {
    Catalog {
        complete: true,
        skills: (0..SKILLS)
            .map(|i| {
                let name = format!("skill-{i:05}");
                let mut frontmatter = Frontmatter::defaults(&name);
                frontmatter.description = Some(format!(
                    "Use when working on generated task {i} - a realistic one-sentence description of what it does"
                ));
                frontmatter.pinned = i % 100 == 0;
                Arc::new(Skill {
                    source: "bench".into(),
                    scope: if i % 50 == 0 { Scope::Bundled } else { Scope::User },
                    path: Location::Path(format!("/skills/{name}/SKILL.md").into()),
                    base: Location::Path(format!("/skills/{name}").into()),
                    frontmatter,
                    json: None,
                })
            })
            .collect(),
        ..Catalog::default()
    }
}

/// Writes [`LEARN_LOGS`] session logs of [`LEARN_CALLS`] tool calls each
/// (noise from 40 tools with the hidden workflows among it, and an agent
/// message every tenth line), then runs this binary's `learn --dry-run`
/// over them as a separate process: its wall time, and its peak resident
/// memory as the kernel reports it for the waited-for child.
fn learn_run() -> Result<(Duration, u64)> {
    use std::io::Write as _;
    let dir = tempfile::tempdir().context("a temporary folder")?;
    let mut mix = Mix(26);
    let noise: Vec<String> = (0..40).map(|i| format!("tool_{i:02}")).collect();
    let mut args: Vec<std::ffi::OsString> = ["learn", "--dry-run", "--json", "--no-bundled"]
        .iter()
        .map(Into::into)
        .collect();
    for n in 0..LEARN_LOGS {
        let path = dir.path().join(format!("session-{n}.jsonl"));
        let file = std::fs::File::create(&path).with_context(|| path.display().to_string())?;
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let mut written = 0;
        while written < LEARN_CALLS {
            let block: Vec<&str> = if mix.below(10) == 0 {
                WORKFLOWS[mix.below(WORKFLOWS.len())].to_vec()
            } else {
                vec![noise[mix.below(noise.len())].as_str()]
            };
            for tool in block {
                writeln!(
                    out,
                    r#"{{"type":"tool-call","tool":"{tool}","visible":true}}"#
                )?;
                written += 1;
                if written % 10 == 0 {
                    writeln!(
                        out,
                        r#"{{"type":"message","visible":true,"content":"The agent explains what call {written} found, in a sentence or two of ordinary text."}}"#
                    )?;
                }
            }
        }
        out.flush()?;
        args.push("--log".into());
        args.push(path.into());
    }
    let empty = dir.path().join("skills");
    std::fs::create_dir(&empty)?;
    args.extend(["--root".into(), empty.clone().into_os_string()]);
    args.extend(["--into".into(), dir.path().join("learned").into_os_string()]);
    args.extend(["--state".into(), dir.path().join("state").into_os_string()]);
    let exe = super::product()?;
    let (elapsed, status) = timed(|| {
        std::process::Command::new(&exe)
            .args(&args)
            .stdout(std::process::Stdio::null())
            .status()
    });
    let status = status.context("cannot run skillhost learn")?;
    anyhow::ensure!(status.success(), "bench: skillhost learn failed: {status}");
    Ok((elapsed, children_peak_kib()))
}

/// The largest peak resident memory of the children waited for (KiB).
fn children_peak_kib() -> u64 {
    // SAFETY: getrusage writes only into the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let done = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    if done == 0 {
        usage.ru_maxrss.max(0) as u64
    } else {
        0
    }
}

/// Runs the measurements: `rounds` of detection (at least 3), 101 rounds
/// of ranking, [`RECORDS`] invocations, and `learn` over large logs.
pub fn run(rounds: usize) -> Result<UsageReport> {
    let mut report = UsageReport {
        learn: Some(learn_run()?),
        ..UsageReport::default()
    };
    let sessions = sessions();
    for _ in 0..rounds.max(3) {
        let (elapsed, found) = timed(|| patterns::detect(&sessions, &Options::default()));
        report.detect.push(elapsed);
        let hidden = WORKFLOWS
            .iter()
            .filter(|w| {
                found
                    .iter()
                    .any(|p| p.tools == w.iter().map(|t| t.to_string()).collect::<Vec<_>>())
            })
            .count();
        report.patterns = (found.len(), hidden);
    }
    anyhow::ensure!(
        report.patterns.1 == WORKFLOWS.len(),
        "bench: detection found {} of the {} hidden workflows",
        report.patterns.1,
        WORKFLOWS.len()
    );

    let catalog = catalog();
    let now = SystemTime::now();
    let mut mix = Mix(7);
    // Two skills in three have been used: up to 50 times, up to 120 days ago.
    let mut usage: BTreeMap<String, SkillUsage> = BTreeMap::new();
    for skill in &catalog.skills {
        if mix.below(3) == 0 {
            continue;
        }
        let known = SkillUsage {
            count: mix.below(50) as u64 + 1,
            last_used: Some(now - days(mix.below(120) as f64)),
            ..SkillUsage::default()
        };
        usage.insert(skill.name().to_string(), known);
    }
    let skills: Vec<&Skill> = catalog.skills.iter().map(|s| s.as_ref()).collect();
    for _ in 0..101 {
        let (elapsed, listing) = timed(|| {
            let scores = catalog_scores(&catalog, &usage, now);
            render_ranked(&skills, RenderOptions::default(), &scores)
        });
        std::hint::black_box(listing);
        report.ranked.push(elapsed);
        let (elapsed, listing) = timed(|| render(&skills, RenderOptions::default()));
        std::hint::black_box(listing);
        report.unranked.push(elapsed);
    }

    let dir = tempfile::tempdir().context("a temporary folder")?;
    let store = UsageStore::open(&dir.path().join("usage.db"))?;
    let mut log = JsonlLog::open(&dir.path().join("session.jsonl"))?;
    for i in 0..RECORDS {
        let name = format!("skill-{:05}", i % 100);
        let record = InvocationRecord {
            skill: &name,
            source: "bench",
            caller: "model",
            session: "bench-session",
            outcome: Outcome::Inline,
        };
        let (elapsed, result) = timed(|| store.record_invocation(&record));
        result?;
        report.record.push(elapsed);
        let mut event = Event::new("message");
        event.content = Some(name);
        let (elapsed, result) = timed(|| log.append(event));
        result?;
        report.append.push(elapsed);
    }
    anyhow::ensure!(
        store.invocation_count()? == RECORDS as u64,
        "bench: the store holds the wrong number of invocations"
    );
    Ok(report)
}
