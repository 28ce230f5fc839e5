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
    /// A remote mirror (a folder or index.json URL served over HTTP), or an
    /// MCP skills server (mcp+https://host/path; mcp+http:// on loopback);
    /// its skills are listed as LABEL:name, LABEL defaulting to the URL's host.
    #[arg(long = "remote", value_name = "[LABEL=]URL")]
    pub remotes: Vec<String>,
    /// Leave out the skills bundled with skillhost.
    #[arg(long)]
    pub no_bundled: bool,
}

/// Where the usage store lives, for every command that reads or records use.
#[derive(clap::Args, Clone, Default)]
pub struct StateArgs {
    /// The state folder holding usage.db (default: SKILLHOST_STATE_DIR, else
    /// $XDG_STATE_HOME/skillhost, else ~/.local/state/skillhost).
    #[arg(long = "state", value_name = "DIR")]
    pub state: Option<PathBuf>,
}

/// How to reach an OCI registry, for `add`, `update` and `publish`.
#[derive(clap::Args, Clone, Default)]
pub struct RegistryArgs {
    /// Plain HTTP instead of HTTPS, for a registry on loopback only (as
    /// `oras --plain-http`).
    #[arg(long)]
    pub plain_http: bool,
    /// A file holding a bearer token for the registry (default: the
    /// registry's entry in the Docker config's auths, else anonymous).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The Docker config whose `auths` hold the registry's credentials
    /// (default: ~/.docker/config.json, when there is one).
    #[arg(long, value_name = "FILE")]
    pub docker_config: Option<PathBuf>,
    /// Seconds each registry operation may take before it is given up.
    #[arg(long, default_value_t = 60, value_name = "SECONDS",
          value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub registry_timeout: u64,
}

/// How large the model's listing may be, for every command that renders it.
#[derive(clap::Args, Clone, Default)]
pub struct ListingArgs {
    /// Most characters of the model's listing (default: skillhost.toml's
    /// [listing], else 1% of a 200,000-token context: 8,000).
    #[arg(long = "listing-budget", value_name = "CHARS",
          value_parser = clap::value_parser!(u32).range(200..=1_000_000))]
    pub budget: Option<u32>,
    /// Size the listing for a model with this many tokens of context (1% of
    /// it, four characters a token).
    #[arg(long = "context-tokens", value_name = "TOKENS", conflicts_with = "budget",
          value_parser = clap::value_parser!(u64).range(20_000..=100_000_000))]
    pub context_tokens: Option<u64>,
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
        /// Only what a person may invoke as a slash command (user), or
        /// exactly the listing the model is given (model); default: everything.
        #[arg(long = "for", value_enum, value_name = "WHO")]
        view: Option<View>,
        /// The session log whose activations and discovered roots count
        /// (as for inject).
        #[arg(long, value_name = "FILE")]
        session: Option<PathBuf>,
        /// Find skills by words in their name, description or when_to_use,
        /// in rank order, a page at a time ("" lists them all).
        #[arg(long, value_name = "WORDS", conflicts_with = "view")]
        search: Option<String>,
        /// The page of search results (from 1).
        #[arg(long, value_name = "N", default_value_t = 1, requires = "search",
              value_parser = clap::value_parser!(u32).range(1..))]
        page: u32,
        #[command(flatten)]
        listing: ListingArgs,
        /// Usage scores rank the listing and search as they rank inject's.
        #[command(flatten)]
        state: StateArgs,
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
    /// Approve a remote skill (LABEL:name): its allowed-tools count as
    /// pre-approved while every one of its files keeps the digest it has now.
    Approve {
        /// The remote skill's name (LABEL:name).
        name: String,
        #[command(flatten)]
        sources: SourceArgs,
        /// Print what the approval is bound to as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check skills against strict rules; report every problem, exit 1 on any error.
    Validate {
        /// A skill folder, a SKILL.md or flat .md file, or a folder of skills.
        #[arg(required = true, value_name = "PATH")]
        paths: Vec<PathBuf>,
        /// The rules: what Claude Code and skillhost read (claude), or the
        /// Agent Skills specification as its reference validator reads it
        /// (agentskills).
        #[arg(long, value_enum, default_value_t = ProfileArg::Claude)]
        profile: ProfileArg,
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
        /// Usage scores order the listing and decide what is shortened first.
        #[command(flatten)]
        state: StateArgs,
        #[command(flatten)]
        listing: ListingArgs,
        /// Print the outcome and the event appended as JSON.
        #[arg(long)]
        json: bool,
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
        #[command(flatten)]
        listing: ListingArgs,
        /// Print what was activated and discovered, and the reminder, as JSON.
        #[arg(long)]
        json: bool,
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
        /// The invocation is recorded in this state folder's usage store.
        #[command(flatten)]
        state: StateArgs,
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
        /// Polling interval in milliseconds (1 to 3600000).
        #[arg(long, default_value_t = 200, value_name = "MS",
              value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
        poll_interval: u64,
        /// How long a burst of changes must be quiet before it counts, in
        /// milliseconds (0 to 60000).
        #[arg(long, default_value_t = 10, value_name = "MS",
              value_parser = clap::value_parser!(u64).range(0..=60_000))]
        window: u64,
        /// The usage store the idle runner reviews into.
        #[command(flatten)]
        state: StateArgs,
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
    /// Trust a skillhost.toml found in the current folder: record its SHA-256,
    /// so commands run there use it (a changed file needs trusting again).
    Trust {
        /// The file (default: skillhost.toml in the current folder).
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
        /// Print what was trusted as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Add a provider component from an OCI registry
    /// (oci://REGISTRY/REPOSITORY:TAG or ...@sha256:DIGEST): pull it, show
    /// what `inspect` shows, and after confirmation write a pinned
    /// [[provider]] to skillhost.toml, trust the file and precompile it.
    Add {
        /// The component's reference.
        #[arg(value_name = "REF")]
        reference: String,
        /// A folder it may read (read-only); what it asks for on its own is
        /// never granted.
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// An HTTP origin it may reach (scheme://host:port).
        #[arg(long = "origin", value_name = "ORIGIN")]
        origins: Vec<String>,
        /// Its provider id (default: the repository's last part).
        #[arg(long, value_name = "ID")]
        id: Option<String>,
        /// Write without asking (for scripts). Without a terminal to ask
        /// on, nothing is written unless this is given.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        registry: RegistryArgs,
        /// Where components are stored and the file is trusted.
        #[command(flatten)]
        state: StateArgs,
        /// Print what was added (or would have been) as JSON; the report
        /// and the question go to stderr.
        #[arg(long)]
        json: bool,
    },
    /// Re-resolve the tags of providers added from a registry and show, for
    /// each, the old and new digest and how their manifests differ;
    /// re-pin after approval.
    Update {
        /// Only this provider (default: every one added from a registry).
        #[arg(value_name = "ID")]
        id: Option<String>,
        /// Change nothing; exit 1 when an update exists (for CI).
        #[arg(long)]
        check: bool,
        /// Re-pin without asking (for scripts).
        #[arg(long, conflicts_with = "check")]
        yes: bool,
        #[command(flatten)]
        registry: RegistryArgs,
        /// Where components are stored and the file is trusted.
        #[command(flatten)]
        state: StateArgs,
        /// Print each provider's outcome as JSON; questions go to stderr.
        #[arg(long)]
        json: bool,
    },
    /// Push a provider component to an OCI registry as a Wasm artifact
    /// (one application/wasm layer); refuses a file that is not one.
    Publish {
        /// The component.
        #[arg(value_name = "PROVIDER.wasm")]
        file: PathBuf,
        /// Where to push it: oci://REGISTRY/REPOSITORY:TAG.
        #[arg(value_name = "REF")]
        reference: String,
        #[command(flatten)]
        registry: RegistryArgs,
        /// Print what was published as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Describe a provider component: its contract version, what it
    /// declares it wants (asked of an instance granted nothing), imports
    /// (and which the sandbox denies), exports, size, SHA-256, and the
    /// skillhost.toml lines that grant it, pinned.
    Inspect {
        /// The component (a `.wasm` file).
        #[arg(value_name = "PROVIDER.wasm")]
        file: PathBuf,
        /// Print the description as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check a provider component against the provider contract: one line
    /// per check (pass, fail with the reason, skip with why); exit 1 on any
    /// failure.
    Conformance {
        /// The component to check.
        #[arg(value_name = "PROVIDER.wasm")]
        component: PathBuf,
        /// A folder granted to the provider, read-only (default: a fixture
        /// tree the kit lays out itself, which the fixture, delta and
        /// on-change checks need).
        #[arg(long = "root", value_name = "DIR")]
        roots: Vec<PathBuf>,
        /// A setting passed to the provider's init.
        #[arg(long = "setting", value_name = "K=V", value_parser = parse_setting)]
        settings: Vec<(String, String)>,
        /// An HTTP origin granted to the provider (scheme://host:port).
        #[arg(long = "origin", value_name = "ORIGIN")]
        origins: Vec<String>,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Also write the report as JUnit XML to FILE.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
    },
    /// Serve the live catalog over MCP, with the Skills Extension: on stdin
    /// and stdout, or (with --http) as Streamable HTTP at /mcp.
    Serve {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        listing: ListingArgs,
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
        /// Let rmcp answer every skills/list, without the cached pages
        /// served in front of it (slower; for comparing the two).
        #[arg(long, requires = "http")]
        rmcp_listing: bool,
        /// How long a burst of changes must be quiet before it counts, in milliseconds.
        #[arg(long, default_value_t = 10, value_name = "MS")]
        window: u64,
        /// Most entries in one page of skills/list (and twice that for the
        /// other lists); pages also stop at about 1 MiB.
        #[arg(long, default_value_t = 500, value_name = "N",
              value_parser = clap::value_parser!(u16).range(1..=1000))]
        page_size: u16,
        /// The ttlMs sent with cacheable results: how long a client may keep
        /// a listing before asking again.
        #[arg(long, default_value_t = 60_000, value_name = "MS")]
        ttl_ms: u64,
        /// Invocations are recorded, and usage reviewed while idle, here.
        #[command(flatten)]
        state: StateArgs,
        /// With --http, print `{"url": ...}` on standard output once
        /// listening (on stdio the output is the protocol itself).
        #[arg(long, requires = "http")]
        json: bool,
    },
    /// usage, curate, record, learn.
    #[command(flatten)]
    Usage(UsageCommand),
}

/// The usage commands (`usage`, `curate`, `record`, `learn`).
#[derive(Subcommand)]
pub enum UsageCommand {
    /// List each skill's uses, last use and usage score.
    Usage {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        state: StateArgs,
        /// Print the listing as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Report each skill's lifecycle state (active, inactive, stale,
    /// deprecated) and the candidates to archive; archive, restore, or
    /// pause and resume the idle runner.
    Curate {
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        state: StateArgs,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
        /// Move deprecated skills of writable local roots into `<root>/.archive/`
        /// (asks first on a terminal; without one, only with --yes).
        #[arg(long)]
        archive: bool,
        /// Archive without asking (for scripts).
        #[arg(long, requires = "archive")]
        yes: bool,
        /// Move the archived skill NAME back into its root.
        #[arg(long, value_name = "NAME", conflicts_with_all = ["archive", "undo"])]
        restore: Option<String>,
        /// Move back every skill the latest --archive moved.
        #[arg(long, conflicts_with = "archive")]
        undo: bool,
        /// Pause the idle runner of every process using this store.
        #[arg(long, conflicts_with = "resume")]
        pause: bool,
        /// Resume the idle runner.
        #[arg(long)]
        resume: bool,
    },
    /// Record tool calls of a session, in order, for `learn`; or, with
    /// --log, the skills session logs show the agent used on its own.
    Record {
        /// The session's id.
        #[arg(
            long,
            value_name = "ID",
            required_unless_present = "logs",
            conflicts_with = "logs"
        )]
        session: Option<String>,
        /// The tools called.
        #[arg(value_name = "TOOL", required_unless_present = "logs")]
        tools: Vec<String>,
        /// A session log (JSONL) whose reads of a SKILL.md, Skill tool calls
        /// and commands run inside a skill's folder count as uses of it
        /// (each log once).
        #[arg(long = "log", value_name = "FILE")]
        logs: Vec<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        state: StateArgs,
        /// Print what was recorded as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Turn tool sequences repeated across sessions into new skills.
    Learn {
        /// Print what would be written, and write nothing.
        #[arg(long)]
        dry_run: bool,
        /// Leave out patterns less confident than this (0 to 1).
        #[arg(long, default_value_t = skillhost_usage::learn::DEFAULT_MIN_CONFIDENCE, value_name = "X")]
        min_confidence: f64,
        /// The writable skills root the new skills go into.
        #[arg(long, value_name = "ROOT")]
        into: PathBuf,
        /// A session log (JSONL) whose tool-call events count as one more session.
        #[arg(long = "log", value_name = "FILE")]
        logs: Vec<PathBuf>,
        #[command(flatten)]
        sources: SourceArgs,
        #[command(flatten)]
        state: StateArgs,
        /// Print the plan as JSON.
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

/// Which rules `validate` applies.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProfileArg {
    /// Claude Code's and skillhost's fields; names of a-z, 0-9 and '-'.
    Claude,
    /// The Agent Skills spec's fields only; Unicode lowercase names (NFKC).
    #[value(name = "agentskills")]
    AgentSkills,
}

/// Whose view of the catalog `catalog --for` prints.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum View {
    /// The slash commands a person may invoke.
    User,
    /// The listing the model is given, as inject publishes it.
    Model,
}

/// A `K=V` setting.
fn parse_setting(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_string(), value.to_string())),
        _ => Err(format!("{text:?} is not KEY=VALUE")),
    }
}
