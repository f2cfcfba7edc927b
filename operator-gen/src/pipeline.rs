//! How generation uses the machine's cores.
//!
//! syn's syntax trees cannot leave the thread that parsed them (proc-macro2 keeps their
//! source positions in a thread-local map), so the work is split in two rounds on the same
//! worker threads:
//!
//! 1. Each worker takes files from a common queue (largest first), parses them, and reports
//!    what crosses threads: the declarations and imports of each file ([`FileSummary`]), its
//!    root kinds by (group, kind), the facts each plugin generator collects from it (the
//!    `#[rbac]` markers, ...), and its marker errors.
//! 2. The calling thread builds the crate-wide [`Skeleton`] for name resolution and hands
//!    each CRD to the worker that parsed its first version's file. Workers build the schemas
//!    and CRDs with their own trees; a type declared in a file another worker parsed is
//!    parsed again here, on first use. Meanwhile the calling thread runs the plugin
//!    generators' builds.
//!
//! Only the generators asked for run: without the CRD generator, no kind is even read.
//!
//! The result does not depend on the number of threads: CRDs come out sorted by group and
//! kind, roles are normalised, errors are sorted and deduplicated.

use std::cell::OnceCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::mpsc;

use crate::api::apiextensions::v1::CustomResourceDefinition;

use crate::diagnostics::Diagnostics;
use crate::generator::{ArtifactKind, Facts};
use crate::markers::{PrintColumnMarker, ResourceMarker, SubresourceMarker};
use crate::output::Artifact;
use crate::schema::SchemaBuilder;
use crate::source::{FileSummary, Index, Input, Skeleton, SourceFile, TypeDecl};
use crate::{Error, LocatedError, Options, Origin, crd, output};

/// The stack of a worker thread. Parsing, schema building and rendering recurse once per
/// level of nesting, up to [`crate::source::MAX_NESTING`] levels; the default 2 MiB of a
/// spawned thread is not enough for that in a debug build (the main thread has 8 MiB).
/// Only the pages used are committed.
pub(crate) const WORKER_STACK: usize = 64 * 1024 * 1024;

/// Inputs smaller than this (in bytes) stay on the calling thread.
const PARALLEL_FROM_BYTES: usize = 64 * 1024;

/// What round one found in one file.
#[derive(Default)]
struct FileFacts {
    summary: FileSummary,
    /// Each root kind.
    kinds: Vec<KindFact>,
    /// What each plugin generator that ran collected, in the order of [`Run::plugins`].
    plugins: Vec<Option<Facts>>,
    errors: Vec<LocatedError>,
}

/// A root kind as round one reads it.
struct KindFact {
    /// Position in the file's declarations.
    no: usize,
    group: String,
    kind: String,
    /// The plural its CRD is named by (given, or made from the kind).
    plural: String,
    /// Its singular (given, or the kind in lower case) and short names: with the plural, the
    /// resource names it claims in its group.
    singular: String,
    shortnames: Vec<String>,
    /// Where its `#[resource]` marker is, to report a clash of CRD names.
    at: LocatedError,
}

/// The generators asked for.
struct Run<'o> {
    options: &'o Options,
    crds: bool,
    /// The others, which collect facts and build their files themselves.
    plugins: Vec<ArtifactKind>,
}

impl<'o> Run<'o> {
    fn new(options: &'o Options, ran: &[ArtifactKind]) -> Self {
        let mut plugins: Vec<ArtifactKind> = ran
            .iter()
            .copied()
            .filter(|k| *k != ArtifactKind::CRD)
            .collect();
        plugins.sort();
        plugins.dedup();
        Self {
            options,
            crds: ran.contains(&ArtifactKind::CRD),
            plugins,
        }
    }
}

/// Round one's report of a worker: (input position, facts) of each file it claimed, or the
/// syntax errors.
type RoundOne = Result<Vec<(usize, FileFacts)>, Vec<LocatedError>>;

/// The CRD-level markers of the kinds a worker read in round one, by (input position,
/// position in the file's declarations). They hold spans, so they stay with the worker,
/// which builds those kinds in round two without reading the markers again.
type KindMarkers =
    HashMap<(usize, usize), (ResourceMarker, SubresourceMarker, Vec<PrintColumnMarker>)>;

/// What the calling thread decides between the rounds.
struct Plan {
    skeleton: Skeleton,
    /// (group, kind) → declaration ids of its versions, sorted by group and kind.
    crds: Vec<((String, String), Vec<usize>)>,
    /// Per worker, the positions in `crds` it builds.
    assigned: Vec<Vec<usize>>,
}

/// Round two's report of a worker: what it made of each CRD it built (see [`run`]), by
/// position in `Plan::crds`, and problems.
type RoundTwo<T> = (Vec<(usize, T)>, Vec<LocatedError>);

/// What a run made: the CRDs (each passed through `emit`), in (group, kind) order, and the
/// files of the other generators, in registration order.
pub type Made<T> = (Vec<T>, Vec<Artifact>);

/// The CRDs (each passed through `emit` by the worker that built it, in (group, kind)
/// order) and the other generators' files of `inputs`, or every problem found. Only the
/// generators in `ran` run.
///
/// `emit` is where a CRD can become its file: rendered on the thread that built it, the
/// object is gone before the next one is built, so a large API never holds all its CRDs.
pub fn run<T: Send>(
    inputs: &[Input],
    options: &Options,
    ran: &[ArtifactKind],
    emit: &(impl Fn(CustomResourceDefinition) -> T + Sync),
) -> Result<Made<T>, Error> {
    let total: usize = inputs.iter().map(|i| i.text.len()).sum();
    let threads = if total < PARALLEL_FROM_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    run_on(inputs, &Run::new(options, ran), threads, emit)
}

/// [`run`] on up to `threads` workers (one per input at most).
fn run_on<T: Send>(
    inputs: &[Input],
    run: &Run<'_>,
    threads: usize,
    emit: &(impl Fn(CustomResourceDefinition) -> T + Sync),
) -> Result<Made<T>, Error> {
    let threads = threads.min(inputs.len()).max(1);
    let queue = Queue::new(inputs);
    if threads == 1 {
        let cells = cells(inputs.len());
        let (facts, mut kinds) = round_one(inputs, &queue, &cells, run);
        let (plan, plugin_facts, errors) = plan(vec![facts.map_err(syntax_errors)?], 1);
        let built = round_two(0, inputs, &cells, &mut kinds, &plan, run.options, emit);
        return finish(vec![built], build_plugins(run, plugin_facts), errors);
    }

    std::thread::scope(|scope| {
        let (report, reports) = mpsc::channel::<(usize, RoundOne)>();
        let mut plan_senders = Vec::new();
        let mut workers = Vec::new();
        for w in 0..threads {
            let (plan_sender, plan_receiver) = mpsc::channel::<std::sync::Arc<Plan>>();
            plan_senders.push(plan_sender);
            let report = report.clone();
            let queue = &queue;
            let worker = std::thread::Builder::new().stack_size(WORKER_STACK);
            workers.push(
                worker
                    .spawn_scoped(scope, move || {
                        let cells = cells(inputs.len());
                        let (facts, mut kinds) = round_one(inputs, queue, &cells, run);
                        let _ = report.send((w, facts));
                        // Without this sender the calling thread sees when every worker reported
                        // or died, and never waits on a panicked one.
                        drop(report);
                        // No plan comes when generation stops after round one.
                        match plan_receiver.recv() {
                            Ok(plan) => {
                                round_two(w, inputs, &cells, &mut kinds, &plan, run.options, emit)
                            }
                            Err(_) => (Vec::new(), Vec::new()),
                        }
                    })
                    .expect("a worker thread starts"),
            );
        }
        drop(report);
        let mut per_worker: Vec<Option<RoundOne>> = (0..threads).map(|_| None).collect();
        for (w, one) in reports.iter() {
            per_worker[w] = Some(one);
        }
        let mut facts = Vec::new();
        let mut syntax = Vec::new();
        let mut complete = true;
        for one in per_worker {
            match one {
                Some(Ok(f)) => facts.push(f),
                Some(Err(e)) => syntax.extend(e),
                None => complete = false,
            }
        }
        if !complete || !syntax.is_empty() {
            drop(plan_senders);
            // A worker that never reported has panicked: joining passes the panic on.
            join(workers);
            return Err(syntax_errors(syntax));
        }
        let (plan, plugin_facts, errors) = plan(facts, threads);
        let plan = std::sync::Arc::new(plan);
        for sender in &plan_senders {
            let _ = sender.send(plan.clone());
        }
        // The other generators build here while the workers build the CRDs.
        let files = build_plugins(run, plugin_facts);
        finish(join(workers), files, errors)
    })
}

/// The files still to parse, largest first: each worker takes the next one when it is
/// done with its last, so the workers finish together even when files differ in size or
/// a worker gets less of the machine.
struct Queue {
    order: Vec<usize>,
    next: std::sync::atomic::AtomicUsize,
}

impl Queue {
    fn new(inputs: &[Input]) -> Self {
        let mut order: Vec<usize> = (0..inputs.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(inputs[i].text.len()));
        Self {
            order,
            next: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    fn take(&self) -> Option<usize> {
        let k = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.order.get(k).copied()
    }
}

/// Joins the workers in order, passing a worker's panic on.
fn join<T>(workers: Vec<std::thread::ScopedJoinHandle<'_, T>>) -> Vec<T> {
    workers
        .into_iter()
        .map(|w| {
            w.join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        })
        .collect()
}

fn cells(n: usize) -> Vec<OnceCell<SourceFile>> {
    (0..n).map(|_| OnceCell::new()).collect()
}

/// Parses the files this worker takes from `queue` into `cells` and gathers their facts.
fn round_one(
    inputs: &[Input],
    queue: &Queue,
    cells: &[OnceCell<SourceFile>],
    run: &Run<'_>,
) -> (RoundOne, KindMarkers) {
    let mut taken = Vec::new();
    let mut syntax = Vec::new();
    while let Some(no) = queue.take() {
        match inputs[no].parse() {
            Ok(file) => {
                let _ = cells[no].set(file);
                taken.push(no);
            }
            Err(e) => syntax.push(e),
        }
    }
    let mut kinds = KindMarkers::new();
    if !syntax.is_empty() {
        return (Err(syntax), kinds);
    }
    let facts = taken
        .into_iter()
        .map(|no| {
            let file = cells[no].get().expect("parsed above");
            (no, file_facts(no, file, run, &mut kinds))
        })
        .collect();
    (Ok(facts), kinds)
}

fn file_facts(
    file_no: usize,
    file: &SourceFile,
    run: &Run<'_>,
    kinds: &mut KindMarkers,
) -> FileFacts {
    let summary = crate::source::summarize(file);
    let mut facts = FileFacts::default();
    let mut problems = Vec::new();
    let twice = if run.crds {
        declared_twice(file, &summary)
    } else {
        Vec::new()
    };
    let items = if run.crds {
        crate::source::type_items(file)
    } else {
        Vec::new()
    };
    for (no, item) in items.into_iter().enumerate() {
        let decl = TypeDecl {
            item,
            module: &summary.decls[no].0,
            file,
        };
        let mut diags = Diagnostics::new();
        if let Some(k) = crd::kind_decl(decl, &mut diags) {
            let kind = k.kind();
            facts.kinds.push(KindFact {
                no,
                group: k.resource.group.value.clone(),
                plural: k
                    .resource
                    .plural
                    .as_ref()
                    .map_or_else(|| crd::default_plural(&kind), |p| p.value.clone()),
                singular: k
                    .resource
                    .singular
                    .as_ref()
                    .map_or_else(|| kind.to_ascii_lowercase(), |s| s.value.clone()),
                shortnames: k.resource.shortnames.clone(),
                kind,
                at: LocatedError::new(file, k.resource.span, String::new(), Origin::Source),
            });
            kinds.insert((file_no, no), (k.resource, k.subresources, k.printcolumns));
        }
        problems.push((file, diags));
    }
    for plugin in &run.plugins {
        let mut diags = Diagnostics::new();
        facts
            .plugins
            .push(plugin.generator().collect(file, &mut diags));
        problems.push((file, diags));
    }
    facts.errors = located(problems, Origin::Marker, twice);
    facts.summary = summary;
    facts
}

/// Types declared twice in one module. That compiles only when `#[cfg]`s pick one of them,
/// and operator-gen reads the sources without compiling them, so it cannot know which one
/// a build uses: the CRD would silently follow the last one it read.
fn declared_twice<'a>(
    file: &'a SourceFile,
    summary: &FileSummary,
) -> Vec<(&'a SourceFile, proc_macro2::Span, String, Origin)> {
    let mut seen: HashMap<(&[String], &str), usize> = HashMap::new();
    let mut twice = Vec::new();
    for (no, (module, name)) in summary.decls.iter().enumerate() {
        if let Some(first) = seen.insert((module.as_slice(), name.as_str()), no) {
            twice.push((first, no));
        }
    }
    if twice.is_empty() {
        return Vec::new();
    }
    let items = crate::source::type_items(file);
    twice
        .into_iter()
        .map(|(first, second)| {
            let (module, name) = &summary.decls[second];
            let line = items[first].ident().span().start().line;
            let place = if module.is_empty() {
                "the crate root".to_string()
            } else {
                format!("module `{}`", module.join("::"))
            };
            (
                file,
                items[second].ident().span(),
                format!(
                    "`{name}` is declared twice in {place} (also on line {line}); operator-gen reads every item whatever its #[cfg], so it cannot tell which one a build uses: give them different names, or keep one declaration and put the #[cfg] on its fields"
                ),
                Origin::Source,
            )
        })
        .collect()
}

/// Builds the skeleton and hands out the CRDs; returns the plan, each plugin's facts in
/// input order, and round one's marker errors.
fn plan(
    per_worker: Vec<Vec<(usize, FileFacts)>>,
    threads: usize,
) -> (Plan, Vec<Vec<Facts>>, Vec<LocatedError>) {
    let mut files: Vec<(usize, usize, FileFacts)> = per_worker
        .into_iter()
        .enumerate()
        .flat_map(|(w, facts)| facts.into_iter().map(move |(no, f)| (no, w, f)))
        .collect();
    files.sort_by_key(|(no, _, _)| *no);
    let mut summaries = Vec::with_capacity(files.len());
    let mut kinds = Vec::with_capacity(files.len());
    let mut parsed_by = Vec::with_capacity(files.len());
    let mut plugin_facts: Vec<Vec<Facts>> = Vec::new();
    let mut errors = Vec::new();
    for (_, w, f) in files {
        summaries.push(f.summary);
        kinds.push(f.kinds);
        parsed_by.push(w);
        for (p, found) in f.plugins.into_iter().enumerate() {
            if plugin_facts.len() <= p {
                plugin_facts.resize_with(p + 1, Vec::new);
            }
            plugin_facts[p].extend(found);
        }
        errors.extend(f.errors);
    }
    let skeleton = Skeleton::build(summaries);
    let mut by_group_kind: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    let mut crd_names: HashMap<String, String> = HashMap::new();
    // (group, name) -> the kind that claims it: the API server accepts a CRD whose plural,
    // singular or short name another kind of its group already uses, or whose kind or list
    // kind does, but never establishes it (NamesAccepted stays False).
    let mut resource_names: HashMap<(String, String), String> = HashMap::new();
    let mut kind_names: HashMap<(String, String), String> = HashMap::new();
    for (file_no, file_kinds) in kinds.into_iter().enumerate() {
        let first_decl = skeleton.file_decls[file_no].start;
        for fact in file_kinds {
            // Two kinds whose CRDs would have one name (`Widget` and `WIDGET`, or a plural
            // given twice) would overwrite each other's file.
            let name = format!("{}.{}", fact.plural, fact.group);
            let mut reported = false;
            match crd_names.get(&name) {
                Some(other) if *other != fact.kind => {
                    reported = true;
                    errors.push(LocatedError {
                        message: format!(
                            "kinds {other} and {} would both make the CRD {name}: give one of them another `plural = \"...\"`",
                            fact.kind
                        ),
                        ..fact.at.clone()
                    })
                }
                Some(_) => {}
                None => {
                    crd_names.insert(name, fact.kind.clone());
                }
            }
            let mut clashes = Vec::new();
            let resources = [&fact.plural, &fact.singular]
                .into_iter()
                .chain(&fact.shortnames);
            for name in resources {
                let owner = resource_names
                    .entry((fact.group.clone(), name.clone()))
                    .or_insert_with(|| fact.kind.clone());
                if *owner != fact.kind {
                    clashes.push(format!(
                        "the resource name `{name}` (a plural, singular or short name) is both {owner}'s and {}'s",
                        fact.kind
                    ));
                }
            }
            for name in [fact.kind.clone(), format!("{}List", fact.kind)] {
                let owner = kind_names
                    .entry((fact.group.clone(), name.clone()))
                    .or_insert_with(|| fact.kind.clone());
                if *owner != fact.kind {
                    clashes.push(format!(
                        "the kind name `{name}` is both {owner}'s and {}'s (as a kind or list kind)",
                        fact.kind
                    ));
                }
            }
            if let Some(clash) = clashes.first().filter(|_| !reported) {
                errors.push(LocatedError {
                    message: format!(
                        "in group {}, {clash}: the API server accepts both CRDs but establishes only the first it sees (NamesAccepted: False on the other); give one of them other names",
                        fact.group
                    ),
                    ..fact.at.clone()
                });
            }
            by_group_kind
                .entry((fact.group, fact.kind))
                .or_default()
                .push(first_decl + fact.no);
        }
    }
    let crds: Vec<_> = by_group_kind.into_iter().collect();
    // Each CRD goes to the worker that parsed its first version's file: building a kind
    // elsewhere would mean parsing its file twice.
    let mut assigned: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for (pos, (_, ids)) in crds.iter().enumerate() {
        assigned[parsed_by[skeleton.decls[ids[0]].file]].push(pos);
    }
    (
        Plan {
            skeleton,
            crds,
            assigned,
        },
        plugin_facts,
        errors,
    )
}

/// Builds the CRDs assigned to worker `w`.
fn round_two<T>(
    w: usize,
    inputs: &[Input],
    cells: &[OnceCell<SourceFile>],
    read: &mut KindMarkers,
    plan: &Plan,
    options: &Options,
    emit: &impl Fn(CustomResourceDefinition) -> T,
) -> RoundTwo<T> {
    let index = Index::new(&plan.skeleton, inputs, cells);
    let mut builder = SchemaBuilder::new(&index, options);
    let mut problems = Vec::new();
    let mut built = Vec::new();
    for &pos in &plan.assigned[w] {
        let ((group, kind), ids) = &plan.crds[pos];
        let kinds: Vec<crd::KindDecl<'_>> = ids
            .iter()
            .filter_map(|&id| {
                let decl = index.decl(id);
                let file = plan.skeleton.decls[id].file;
                let at = (file, id - plan.skeleton.file_decls[file].start);
                match read.remove(&at) {
                    Some((resource, subresources, printcolumns)) => Some(crd::KindDecl {
                        decl,
                        resource,
                        subresources,
                        printcolumns,
                    }),
                    // Another worker read this version's markers and reported their
                    // errors; read them again here.
                    None => crd::kind_decl(decl, &mut Diagnostics::new()),
                }
            })
            .collect();
        if let Some(mut c) = crd::build_crd(
            group,
            kind,
            kinds.iter().collect(),
            &mut builder,
            &mut problems,
        ) {
            if let Some(max) = options.max_desc_len {
                output::truncate_descriptions(&mut c, max);
            }
            built.push((pos, emit(c)));
        }
    }
    // Round two's own problems are cross-checks of the markers against the schema.
    let errors = located(problems, Origin::Source, builder.file_problems);
    (built, errors)
}

/// Syntax errors of round one, in file order.
pub(crate) fn syntax_errors(mut errors: Vec<LocatedError>) -> Error {
    errors.sort();
    Error::Invalid(errors)
}

/// Each plugin generator's build, from its facts: its files, or its problems.
fn build_plugins(
    run: &Run<'_>,
    mut facts: Vec<Vec<Facts>>,
) -> Result<Vec<Artifact>, Vec<LocatedError>> {
    facts.resize_with(run.plugins.len(), Vec::new);
    let (mut files, mut errors) = (Vec::new(), Vec::new());
    for (plugin, facts) in run.plugins.iter().zip(facts) {
        match plugin.generator().build(facts, run.options) {
            Ok(made) => files.extend(made),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(files)
    } else {
        Err(errors)
    }
}

/// Puts the workers' CRDs in order and the other files next to them, or returns every
/// problem.
fn finish<T>(
    built: Vec<RoundTwo<T>>,
    files: Result<Vec<Artifact>, Vec<LocatedError>>,
    mut errors: Vec<LocatedError>,
) -> Result<Made<T>, Error> {
    let files = files.unwrap_or_else(|e| {
        errors.extend(e);
        Vec::new()
    });
    let mut crds: Vec<(usize, T)> = Vec::new();
    for (c, e) in built {
        crds.extend(c);
        errors.extend(e);
    }
    if !errors.is_empty() {
        errors.sort();
        errors.dedup();
        return Err(Error::Invalid(errors));
    }
    crds.sort_by_key(|(pos, _)| *pos);
    Ok((crds.into_iter().map(|(_, c)| c).collect(), files))
}

/// Problems with their file positions, ready to cross threads. `problems` were found by
/// `origin`; `file_problems` say who found them.
pub(crate) fn located<'a>(
    problems: Vec<(&'a SourceFile, Diagnostics)>,
    origin: Origin,
    file_problems: Vec<(&'a SourceFile, proc_macro2::Span, String, Origin)>,
) -> Vec<LocatedError> {
    problems
        .into_iter()
        .flat_map(|(file, diags)| {
            diags
                .into_vec()
                .into_iter()
                .map(move |d| LocatedError::new(file, d.span, d.message, origin))
        })
        .chain(
            file_problems
                .into_iter()
                .map(|(file, span, msg, origin)| LocatedError::new(file, span, msg, origin)),
        )
        .collect()
}

#[cfg(test)]
mod tests;
