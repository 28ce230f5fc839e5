//! One run: the component described, a provider started from it with the
//! grants the host would give it, and every check in order. A check that
//! cannot run because an earlier one failed is skipped, saying which.

use crate::checks;
use crate::error::Error;
use crate::fixture::Fixture;
use crate::options::Options;
use crate::report::{Check, Component, Report};
use crate::session::{Session, ms};
use skillhost::provider::sources::builtin::{BUNDLED_PROVIDER, REMOTE_PROVIDER};
use skillhost::provider::sources::bundled;
use skillhost::sandbox::CompileCache;
use skillhost::sandbox::RootNeed;
use skillhost::sandbox::describe::{Denied, Granted, denial, describe};
use skillhost::{ProviderSpec, RemoteSource, Runtime, Scope};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Checks the component in the file at `path`.
pub fn check(path: impl AsRef<Path>, options: Options) -> Result<Report, Error> {
    let path = path.as_ref();
    let bytes = skillhost::sandbox::read_component_file(path).map_err(|error| Error::Read {
        path: path.to_path_buf(),
        error,
    })?;
    check_bytes(path, &bytes, options)
}

/// The id a provider under test is given.
const ID: &str = "conformance";

/// The checks, as they are made.
struct Checks(BTreeMap<&'static str, Check>);

impl Checks {
    fn add(&mut self, check: Check, since: Instant) {
        self.0.insert(check.id, check.took(ms(since.elapsed())));
    }

    /// Skips every check not made yet.
    fn skip_rest(&mut self, reason: &str) {
        for id in crate::CHECKS {
            self.0
                .entry(id)
                .or_insert_with(|| Check::skip(id, reason.to_string()));
        }
    }

    fn into_ordered(mut self) -> Vec<Check> {
        crate::CHECKS
            .iter()
            .filter_map(|id| self.0.remove(id))
            .collect()
    }
}

/// Why the folder fixtures are skipped, when they are.
fn no_tree_reason(roots_none: bool, fixture: bool) -> Option<&'static str> {
    if roots_none {
        Some(
            "its manifest says it reads no folders (roots: none): it is granted none, and the checks run on what it serves",
        )
    } else if !fixture {
        Some(
            "roots were given: the kit changes only a fixture tree of its own, laid out when no root is given",
        )
    } else {
        None
    }
}

/// Checks the component `bytes`, shown as `path` in the report.
pub fn check_bytes(path: &Path, bytes: &[u8], options: Options) -> Result<Report, Error> {
    let cache = options.cache_dir.clone().or_else(CompileCache::default_dir);
    let runtime = Runtime::with_cache_dir(cache)?;
    let mut component = Component {
        path: path.to_path_buf(),
        sha256: skillhost_skill::digest::sha256_hex(bytes),
        wit: None,
    };
    let mut checks = Checks(BTreeMap::new());

    let since = Instant::now();
    let described = describe(runtime.engine(), bytes, None).map_err(skillhost::Error::from);
    let contract = checks::contract::contract(&described);
    let passed = contract.status == crate::Status::Pass;
    checks.add(contract, since);
    let (Ok(mut description), true) = (described, passed) else {
        checks.skip_rest("the component is not a provider this host runs (see contract)");
        return Ok(Report {
            component,
            checks: checks.into_ordered(),
        });
    };
    component.wit = Some(description.contract.name());
    let since = Instant::now();
    let (manifest_check, manifest) =
        checks::contract::manifest(runtime.engine(), bytes, &description);
    checks.add(manifest_check, since);
    // The run follows the manifest: a provider that reads no folder is
    // granted none and gets no fixture tree.
    let roots_none = manifest.as_ref().is_some_and(|m| m.roots == RootNeed::None);
    let mut fixture = match options.roots.is_empty() && !roots_none {
        true => Some(Fixture::lay_out()?),
        false => None,
    };
    let roots: Vec<PathBuf> = match &fixture {
        Some(f) => vec![f.root().to_path_buf()],
        None => options.roots.clone(),
    };
    let spec = spec_for(&runtime, bytes, &options, roots.clone());
    let granted = Granted {
        roots: roots.clone(),
        origins: spec.as_ref().map(|s| s.origins.clone()).unwrap_or_default(),
    };
    description.denied = description
        .imports
        .iter()
        .filter_map(|i| {
            denial(&i.name, &granted).map(|reason| Denied {
                import: i.name.clone(),
                reason,
            })
        })
        .collect();
    let mut session = Session::new(runtime.engine().clone(), spec?, options.deadlines);

    let since = Instant::now();
    let started = session.start();
    checks.add(checks::startup::init(&started, &session), since);
    let first = match started {
        Ok(()) => {
            let since = Instant::now();
            let first = session.snapshot(None, false);
            checks.add(checks::startup::snapshot(&first), since);
            first.ok()
        }
        Err(_) => None,
    };
    if let Some(first) = first {
        // The host keeps at most this many; loading more would only take time.
        let listed: Vec<skillhost::Skill> = checks::skills(&first)
            .take(session.caps().max_skills)
            .cloned()
            .collect();
        let names: Vec<String> = listed.iter().map(|s| s.name().to_string()).collect();
        let filesystem = fixture
            .as_ref()
            .is_some_and(|f| reads_roots(&session, &description, f, &first));
        let no_tree = no_tree_reason(roots_none, fixture.is_some()).unwrap_or(
            "not a filesystem provider: it imports no skillhost:provider/files, asks to watch nothing and lists no file of the kit's fixture tree",
        );
        let since = Instant::now();
        match (&fixture, filesystem) {
            (Some(f), true) => checks.add(checks::fixture::check(f, &first), since),
            _ => checks.add(Check::skip("fixture-snapshot", no_tree), since),
        }
        let since = Instant::now();
        checks.add(checks::documents::load(&mut session, &listed), since);
        let since = Instant::now();
        checks.add(
            checks::documents::resources(&mut session, &names, filesystem),
            since,
        );
        let since = Instant::now();
        let observed_file = fixture
            .as_ref()
            .filter(|_| filesystem)
            .map(|f| f.path(crate::fixture::OBSERVED))
            .or_else(|| {
                listed
                    .iter()
                    .find_map(|s| s.path.as_path().map(Path::to_path_buf))
            });
        checks.add(
            checks::observe::check(&mut session, &first, observed_file),
            since,
        );
        let since = Instant::now();
        match (&mut fixture, filesystem) {
            (Some(f), true) => {
                for check in checks::changes::check(&mut session, f, &first) {
                    checks.add(check, since);
                }
            }
            _ => {
                checks.add(checks::changes::unchanged(&mut session, &first), since);
                let why = if roots_none {
                    "its manifest says it reads no folders (roots: none): the host delivers it no file changes"
                } else {
                    no_tree
                };
                checks.add(Check::skip("on-change", why), since);
            }
        }
        let since = Instant::now();
        for check in checks::stability::check(&mut session) {
            checks.add(check, since);
        }
    }
    session.finish();
    let since = Instant::now();
    let refusals: Vec<String> = session.refusals.iter().cloned().collect();
    checks.add(
        checks::contract::denied_imports(&description, &refusals),
        since,
    );
    if session.calls.iter().any(|c| c.export != "init") {
        checks.add(checks::boundary::check(&session), since);
    }
    checks.add(checks::timing::check(&session), since);
    for check in checks::stability::from_faults(&session) {
        checks.0.entry(check.id).or_insert(check);
    }
    let reason = match (&checks.0.get("init"), &checks.0.get("snapshot")) {
        (Some(init), _) if init.status == crate::Status::Fail => "init failed",
        _ => "the first snapshot failed",
    };
    checks.skip_rest(reason);
    Ok(Report {
        component,
        checks: checks.into_ordered(),
    })
}

/// Whether the provider reads its roots: it imports the bulk `files`
/// interface, asks to watch something, or lists a document of the
/// fixture.
fn reads_roots(
    session: &Session,
    description: &skillhost::sandbox::describe::Description,
    fixture: &Fixture,
    first: &skillhost::provider::direct::Observed,
) -> bool {
    let files = description.imports.iter().any(|i| {
        skillhost::sandbox::describe::split_version(&i.name).0 == "skillhost:provider/files"
    });
    let watches = session.instance().is_some_and(|i| !i.watches().is_empty());
    let lists = checks::skills(first).any(|s| {
        s.path
            .as_path()
            .is_some_and(|p| p.starts_with(fixture.root()) && p.is_file())
    });
    files || watches || lists
}

/// The specification the host would start this component with: the
/// first-party bundled and remote providers get what their sources grant
/// (a virtual root; the remote its `url` setting's origin), any other
/// component the roots and origins given.
fn spec_for(
    runtime: &Runtime,
    bytes: &[u8],
    options: &Options,
    roots: Vec<PathBuf>,
) -> Result<ProviderSpec, Error> {
    let component = runtime.load_component(bytes)?;
    let url = options
        .settings
        .iter()
        .find(|(k, _)| k == "url")
        .map(|(_, v)| v.as_str());
    let mut spec = if bytes == BUNDLED_PROVIDER {
        bundled::spec(component)
    } else if let (true, Some(url)) = (bytes == REMOTE_PROVIDER, url) {
        let mut spec = RemoteSource::new(url)?.spec(component);
        spec.settings.retain(|(k, _)| k != "url");
        spec
    } else {
        ProviderSpec::new(ID, Scope::User, component)
    };
    spec.roots = roots;
    spec.settings.extend(options.settings.iter().cloned());
    spec.origins.extend(options.origins.iter().cloned());
    if let Some(limit) = options.deadlines.limit {
        spec.limits.deadline = limit;
    }
    if let Some(mib) = options.memory_mib {
        spec.limits.memory_bytes =
            usize::try_from(mib.saturating_mul(1024 * 1024)).unwrap_or(usize::MAX);
    }
    Ok(spec)
}
