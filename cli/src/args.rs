//! The command line's grammar: every command and its options.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

/// Serve agent skills from sandboxed WebAssembly providers.
#[derive(Parser)]
#[command(name = "skillhost", version, about)]
pub struct Cli {
    /// The configuration file (default: skillhost.toml in the current
    /// folder, if there is one). Its providers are used when no --root is given.
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Where skills come from, for every command that reads them.
#[derive(clap::Args, Clone, Default)]
pub struct SourceArgs {
    /// A skills root, highest precedence first (default: the configured
    /// providers, else .agents/skills and .claude/skills here, then in your
    /// home folder).
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// A remote mirror (a folder or index.json URL served over HTTP); its
    /// skills are listed as LABEL:name, LABEL defaulting to the URL's host.
    #[arg(long = "remote", value_name = "[LABEL=]URL")]
    pub remotes: Vec<String>,
    /// Leave out the skills bundled with skillhost.
    #[arg(long)]
    pub no_bundled: bool,
}

/// The commands.
#[derive(Subcommand)]
pub enum Command {
    /// Print the merged catalog of the skill sources.
    Catalog {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the catalog as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print a skill's body, read again from its source.
    Load {
        /// The skill's name (or an alias).
        name: String,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the skill and its body as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against the strict Agent Skills rules; exit 1 on any problem.
    Validate {
        /// A skill folder, a SKILL.md or flat .md file, or a folder of skills.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// Print the problems as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Append the catalog to an agent's session log (JSONL) if the model's
    /// view changed; print published, unchanged, tombstone, kept-incomplete
    /// or none.
    Inject {
        /// The session log (one JSON object per line).
        #[arg(long, value_name = "FILE")]
        session: PathBuf,
        #[command(flatten)]
        sources: SourceArgs,
        /// Full replacement (default) or only skills the agent was not told about.
        #[arg(long, value_enum, default_value_t = Mode::Replace)]
        mode: Mode,
        /// The agent, for delta mode.
        #[arg(long, value_name = "ID", default_value = "main")]
        agent: String,
    },
    /// Record files the agent touched; print the reminder naming skills that
    /// became available, if any.
    Touch {
        /// The session log.
        #[arg(long, value_name = "FILE")]
        session: PathBuf,
        /// The agent's working folder (paths are matched relative to it).
        #[arg(long, value_name = "DIR")]
        cwd: PathBuf,
        /// The files touched.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
    },
    /// Expand a skill for the user or the model: the text (inline) or the
    /// fork plan. A refusal exits 1 and says why.
    Invoke {
        /// The skill's name or an alias.
        name: String,
        /// Its arguments.
        #[arg(value_name = "ARG")]
        args: Vec<String>,
        /// Who invokes it.
        #[arg(long = "as", value_enum)]
        caller: CallerArg,
        /// The session id for ${SESSION_ID}.
        #[arg(long, value_name = "ID")]
        session_id: Option<String>,
        /// The session log, for skills activated or discovered in it.
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the catalog, then again each time it changes (until interrupted).
    Watch {
        #[command(flatten)]
        sources: SourceArgs,
        /// Print each catalog as one line of JSON.
        #[arg(long)]
        json: bool,
        /// Poll the folders instead of using the operating system's events.
        #[arg(long)]
        poll: bool,
        /// Polling interval in milliseconds.
        #[arg(long, default_value_t = 200, value_name = "MS")]
        poll_interval: u64,
        /// How long a burst of changes must be quiet before it counts, in milliseconds.
        #[arg(long, default_value_t = 10, value_name = "MS")]
        window: u64,
    },
    /// Publish skill roots as a static mirror any web server can serve: an
    /// index.json (a SEP-2640 skills/list result) and every skill's files.
    Mirror {
        /// A skills root, highest precedence first.
        #[arg(required = true, value_name = "ROOT")]
        roots: Vec<PathBuf>,
        /// The folder to write (created if needed; only files of earlier
        /// mirrors are ever removed from it).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Print what was done as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Serve the live catalog over MCP, with the Skills Extension: on stdin
    /// and stdout, or (with --http) as Streamable HTTP at /mcp.
    Serve {
        #[command(flatten)]
        sources: SourceArgs,
        /// Listen for MCP Streamable HTTP on ADDR (IP:PORT; a bare PORT is
        /// loopback) instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<String>,
        /// A file holding the bearer token every HTTP request must carry
        /// (required to listen on a non-loopback address).
        #[arg(long, value_name = "FILE", requires = "http")]
        token_file: Option<PathBuf>,
        /// Another host name clients use to reach the server (Host and
        /// Origin are checked against loopback, the address and these).
        #[arg(long = "allow-host", value_name = "HOST", requires = "http")]
        allow_hosts: Vec<String>,
        /// How long a burst of changes must be quiet before it counts, in milliseconds.
        #[arg(long, default_value_t = 10, value_name = "MS")]
        window: u64,
        /// Most entries in one page of skills/list (and twice that for the
        /// other lists); pages also stop at about 1 MiB.
        #[arg(long, default_value_t = 500, value_name = "N",
              value_parser = clap::value_parser!(u16).range(1..=1000))]
        page_size: u16,
    },
    /// Time the sandboxed provider against a native scan with the same
    /// discovery rules and parser, or (with --latency) how fast a file change
    /// reaches the catalog, or (with --catalog) the injector's per-step costs,
    /// or (with --serve) the MCP server over HTTP.
    Bench {
        /// Skills in the generated tree.
        #[arg(long, default_value_t = 1000)]
        skills: usize,
        /// Timed rounds.
        #[arg(long, default_value_t = 21)]
        rounds: usize,
        /// Measure change-to-catalog latency instead.
        #[arg(long)]
        latency: bool,
        /// Measure rendering and the session-log scan instead.
        #[arg(long, conflicts_with = "latency")]
        catalog: bool,
        /// Measure `skillhost serve` over HTTP instead: skills/list, change to
        /// list_changed, memory per idle session.
        #[arg(long, conflicts_with_all = ["latency", "catalog"])]
        serve: bool,
        /// Entries per skills/list page for --serve.
        #[arg(long, default_value_t = 500, value_name = "N")]
        page_size: usize,
        /// Repetitions of each operation for --latency.
        #[arg(long, default_value_t = 50)]
        reps: usize,
        /// Use polling instead of native events for --latency.
        #[arg(long)]
        poll: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
    },
}

/// How `inject` publishes.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// A full replacement whenever the model's view changed.
    Replace,
    /// Only skills the agent was not yet told about.
    Delta,
}

/// Who invokes a skill.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CallerArg {
    /// The user, by a slash command.
    User,
    /// The model, through the Skill tool.
    Model,
}
