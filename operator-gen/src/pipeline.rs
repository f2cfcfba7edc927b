//! How generation uses the machine's cores.
//!
//! syn's syntax trees cannot leave the thread that parsed them (proc-macro2 keeps their
//! source positions in a thread-local map), so the work is split in two rounds on the same
//! worker threads:
//!
//! 1. Each worker takes files from a common queue (largest first), parses them, lowers them
//!    and drops their trees. It reports what crosses threads: the declarations and imports
//!    of each file ([`FileSummary`]), its share of the model (its declared types, root
//!    kinds and item markers, [`crate::lower`]), and its marker errors.
//! 2. The calling thread builds the crate-wide [`Skeleton`] for name resolution, the
//!    [`Api`] and the list of CRDs to build. Workers take CRDs from that list, build their
//!    schemas from the model (no syntax tree is read again) and pass each CRD to the
//!    generators that read CRDs one by one (the CRD generator renders its file there).
//!    Meanwhile the calling thread runs the builds of the generators that need no CRD.
//! 3. The generators that read every CRD build last, from the whole [`Api`].
//!
//! Only what the generators asked for read is read ([`Reads`]): without a generator that
//! reads kinds, no kind is even looked at.
//!
//! The result does not depend on the number of threads: CRDs come out sorted by group and
//! kind, roles are normalised, errors are sorted and deduplicated.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use crate::api::apiextensions::v1::CustomResourceDefinition;

use crate::diagnostics::Diagnostics;
use crate::generators::{Artifact, ArtifactKind};
use crate::lower::FileFacts;
use crate::model::{Allow, Api, Kind, Reads, TypeDef};
use crate::schema::{SchemaBuilder, Types};
use crate::source::{Input, Skeleton, Sources};
use crate::threads::WORKER_STACK;
use crate::{Error, LocatedError, Options, Warning, crd};

/// Inputs smaller than this (in bytes) stay on the calling thread.
const PARALLEL_FROM_BYTES: usize = 64 * 1024;

/// The generators that run and what they read.
pub(crate) struct Run<'o> {
    options: &'o Options,
    /// In registration order.
    generators: Vec<ArtifactKind>,
    reads: Reads,
    /// Whether the CRD objects are kept for the caller.
    keep_crds: bool,
}

impl<'o> Run<'o> {
    pub(crate) fn new(options: &'o Options, ran: &[ArtifactKind], keep_crds: bool) -> Self {
        let mut generators = ran.to_vec();
        generators.sort();
        generators.dedup();
        let mut reads = generators
            .iter()
            .fold(Reads::default(), |r, g| r.and(g.generator().reads()));
        // A caller that keeps the CRDs reads all of them too.
        reads.all_crds |= keep_crds;
        Self {
            options,
            generators,
            reads,
            keep_crds,
        }
    }

    fn building_each_crd(&self) -> impl Iterator<Item = ArtifactKind> + '_ {
        self.generators
            .iter()
            .copied()
            .filter(|g| g.generator().reads().each_crd)
    }
}

/// Round one's report of a worker: (input position, facts) of each file it claimed, or the
/// syntax errors.
type RoundOne = Result<Vec<(usize, FileFacts)>, Vec<LocatedError>>;

/// What the calling thread decides between the rounds.
struct Plan {
    skeleton: Skeleton,
    /// Every declared type, by declaration id (when CRDs are built).
    types: Vec<TypeDef>,
    /// (group, kind) → declaration ids of its versions, sorted by group and kind.
    crds: Vec<((String, String), Vec<usize>)>,
    /// The next position in `crds` a worker takes.
    next: AtomicUsize,
}

/// What a worker made of one CRD: the object when it is kept, and the files of the
/// generators that read each CRD.
struct BuiltCrd {
    crd: Option<CustomResourceDefinition>,
    files: Vec<(ArtifactKind, Vec<Artifact>)>,
}

/// Round two's report of a worker: what it made of each CRD it built, by position in
/// `Plan::crds`, and problems.
type RoundTwo = (Vec<(usize, BuiltCrd)>, Vec<LocatedError>);

/// What a run made.
#[derive(Debug, Default)]
pub struct Made {
    /// The CRDs, in (group, kind) order, when they were kept.
    pub crds: Vec<CustomResourceDefinition>,
    /// Every generator's files, generators in registration order, each generator's
    /// per-CRD files sorted by name before the files of its build.
    pub files: Vec<Artifact>,
    /// Every root kind's `#[compat(allow = ...)]`, in input order.
    pub compat: Vec<Allow>,
    /// What generation went past, in input order.
    pub warnings: Vec<Warning>,
}

/// The files of the generators in `ran` (and the CRDs, when `keep_crds`), or every problem
/// found.
pub fn run(
    inputs: &[Input],
    options: &Options,
    ran: &[ArtifactKind],
    keep_crds: bool,
) -> Result<Made, Error> {
    let total: usize = inputs.iter().map(|i| i.text.len()).sum();
    let threads = if total < PARALLEL_FROM_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    run_on(inputs, &Run::new(options, ran, keep_crds), threads)
}

/// [`run`] on up to `threads` workers (one per input at most).
fn run_on(inputs: &[Input], run: &Run<'_>, threads: usize) -> Result<Made, Error> {
    let threads = threads.min(inputs.len()).max(1);
    let queue = Queue::new(inputs);
    if threads == 1 {
        let facts = round_one(inputs, &queue, run);
        let (plan, api, errors, warnings) = plan(vec![facts.map_err(Error::invalid)?]);
        let built = round_two(inputs, &plan, run);
        let early = build_generators(run, &api, false);
        return finish(run, api, vec![built], early, errors, warnings);
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
                        let facts = round_one(inputs, queue, run);
                        let _ = report.send((w, facts));
                        // Without this sender the calling thread sees when every worker reported
                        // or died, and never waits on a panicked one.
                        drop(report);
                        // No plan comes when generation stops after round one.
                        match plan_receiver.recv() {
                            Ok(plan) => round_two(inputs, &plan, run),
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
            return Err(Error::invalid(syntax));
        }
        let (plan, api, errors, warnings) = plan(facts);
        let plan = std::sync::Arc::new(plan);
        for sender in &plan_senders {
            let _ = sender.send(plan.clone());
        }
        // The generators that need no CRD build here while the workers build the CRDs.
        let early = build_generators(run, &api, false);
        finish(run, api, join(workers), early, errors, warnings)
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

/// Parses and lowers the files this worker takes from `queue`; each file's tree is dropped
/// once it is lowered.
fn round_one(inputs: &[Input], queue: &Queue, run: &Run<'_>) -> RoundOne {
    let mut facts = Vec::new();
    let mut syntax = Vec::new();
    while let Some(no) = queue.take() {
        match inputs[no].parse() {
            // After a syntax error only syntax errors are reported: lowering stops.
            Ok(file) if syntax.is_empty() => {
                facts.push((no, crate::lower::lower_file(no, &file, run.reads)))
            }
            Ok(_) => {}
            Err(e) => syntax.push(e),
        }
    }
    if syntax.is_empty() {
        Ok(facts)
    } else {
        Err(syntax)
    }
}

/// Builds the skeleton and the model, and lists the CRDs to build; returns the plan, the
/// model (without CRDs), round one's marker errors and its warnings (in file order).
fn plan(per_worker: Vec<Vec<(usize, FileFacts)>>) -> (Plan, Api, Vec<LocatedError>, Vec<Warning>) {
    let mut files: Vec<(usize, FileFacts)> = per_worker.into_iter().flatten().collect();
    files.sort_by_key(|(no, _)| *no);
    let mut summaries = Vec::with_capacity(files.len());
    let mut kinds: Vec<Vec<(usize, Kind)>> = Vec::with_capacity(files.len());
    let mut types = Vec::new();
    let mut api = Api::default();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for (_, f) in files {
        summaries.push(f.summary);
        warnings.extend(f.lowered.warnings);
        kinds.push(f.lowered.kinds);
        types.extend(f.lowered.types);
        api.rbac.extend(f.lowered.rbac);
        api.webhooks.extend(f.lowered.webhooks);
        api.webhook_configurations
            .extend(f.lowered.webhook_configurations);
        errors.extend(f.errors);
        errors.extend(f.twice);
    }
    let skeleton = crate::lower::index(summaries, &mut types);
    let mut by_group_kind: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    let mut crd_names: HashMap<String, String> = HashMap::new();
    // (group, name) -> the kind that claims it: the API server accepts a CRD whose plural,
    // singular or short name another kind of its group already uses, or whose kind or list
    // kind does, but never establishes it (NamesAccepted stays False).
    let mut resource_names: HashMap<(String, String), String> = HashMap::new();
    let mut kind_names: HashMap<(String, String), String> = HashMap::new();
    for (file_no, file_kinds) in kinds.into_iter().enumerate() {
        let first_decl = skeleton.file_decls[file_no].start;
        for (no, fact) in file_kinds {
            // Two kinds whose CRDs would have one name (`Widget` and `WIDGET`, or a plural
            // given twice) would overwrite each other's file.
            let name = fact.crd_name();
            let mut reported = false;
            match crd_names.get(&name) {
                Some(other) if *other != fact.kind => {
                    reported = true;
                    errors.push(fact.at.error(format!(
                        "kinds {other} and {} would both make the CRD {name}: give one of them another `plural = \"...\"`",
                        fact.kind
                    )))
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
                errors.push(fact.at.error(format!(
                    "in group {}, {clash}: the API server accepts both CRDs but establishes only the first it sees (NamesAccepted: False on the other); give one of them other names",
                    fact.group
                )));
            }
            by_group_kind
                .entry((fact.group.clone(), fact.kind.clone()))
                .or_default()
                .push(first_decl + no);
            api.kinds.push(fact);
        }
    }
    let crds: Vec<_> = by_group_kind.into_iter().collect();
    (
        Plan {
            skeleton,
            types,
            crds,
            next: AtomicUsize::new(0),
        },
        api,
        errors,
        warnings,
    )
}

/// Builds the CRDs this worker takes from the plan and passes each to the generators
/// that read CRDs one by one.
fn round_two(inputs: &[Input], plan: &Plan, run: &Run<'_>) -> RoundTwo {
    let options = run.options;
    let instances = typed_arena::Arena::new();
    let types = Types {
        skeleton: &plan.skeleton,
        defs: &plan.types,
        instances: &instances,
    };
    let mut builder = SchemaBuilder::new(types, options);
    let mut problems = Diagnostics::new();
    let mut built = Vec::new();
    loop {
        let pos = plan.next.fetch_add(1, Ordering::Relaxed);
        let Some(((group, kind), ids)) = plan.crds.get(pos) else {
            break;
        };
        let kinds: Vec<crd::KindDecl<'_>> = ids
            .iter()
            .filter_map(|&id| crd::KindDecl::of(id, &plan.types[id]))
            .collect();
        if let Some(c) = crd::build_crd(group, kind, kinds, &mut builder, &mut problems) {
            let files = run
                .building_each_crd()
                .map(|g| (g, g.generator().crd_files(&c, options)))
                .collect();
            let crd = run.reads.all_crds.then_some(c);
            built.push((pos, BuiltCrd { crd, files }));
        }
    }
    // Round two's own problems are cross-checks of the markers against the schema.
    problems.append(builder.problems);
    (built, Sources::new(inputs).located(problems.into_vec()))
}

/// Each generator's build: its files, or the problems it found.
type Builds = Vec<(ArtifactKind, Result<Vec<Artifact>, Vec<LocatedError>>)>;

/// The builds of the generators that read every CRD (`all_crds`) or of the others: each
/// generator's files, or the problems found.
fn build_generators(run: &Run<'_>, api: &Api, all_crds: bool) -> Builds {
    run.generators
        .iter()
        .filter(|g| g.generator().reads().all_crds == all_crds)
        .map(|&g| (g, g.generator().build(api, run.options)))
        .collect()
}

/// Puts the workers' CRDs in order, runs the builds that need them, and puts every
/// generator's files in order; or returns every problem.
fn finish(
    run: &Run<'_>,
    mut api: Api,
    built: Vec<RoundTwo>,
    early: Builds,
    mut errors: Vec<LocatedError>,
    warnings: Vec<Warning>,
) -> Result<Made, Error> {
    let mut crds: Vec<(usize, BuiltCrd)> = Vec::new();
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
    let mut per_crd: HashMap<ArtifactKind, Vec<Artifact>> = HashMap::new();
    for (_, b) in &mut crds {
        for (g, files) in b.files.drain(..) {
            per_crd.entry(g).or_default().extend(files);
        }
    }
    api.crds = crds.into_iter().filter_map(|(_, b)| b.crd).collect();
    let late = if run
        .generators
        .iter()
        .any(|g| g.generator().reads().all_crds)
    {
        build_generators(run, &api, true)
    } else {
        Vec::new()
    };
    let mut builds: HashMap<ArtifactKind, Result<Vec<Artifact>, Vec<LocatedError>>> =
        early.into_iter().chain(late).collect();
    let mut files = Vec::new();
    for g in &run.generators {
        let mut made = per_crd.remove(g).unwrap_or_default();
        made.sort_by(|a, b| a.file_name.cmp(&b.file_name));
        match builds.remove(g) {
            Some(Ok(built)) => made.extend(built),
            Some(Err(e)) => errors.extend(e),
            None => {}
        }
        check_files(*g, &mut made)?;
        files.extend(made);
    }
    if !errors.is_empty() {
        errors.sort();
        errors.dedup();
        return Err(Error::Invalid(errors));
    }
    Ok(Made {
        crds: if run.keep_crds { api.crds } else { Vec::new() },
        files,
        compat: api.kinds.iter().flat_map(|k| k.compat.clone()).collect(),
        warnings,
    })
}

/// A generator's files name their generator and paths under its directory, each path once.
fn check_files(generator: ArtifactKind, files: &mut [Artifact]) -> Result<(), Error> {
    let refuse = |message: String| Error::Generator {
        generator: generator.name(),
        message,
    };
    let mut seen = std::collections::HashSet::new();
    for f in files.iter_mut() {
        if f.kind != generator {
            return Err(refuse(format!(
                "it made {:?} as a file of the generator `{}`",
                f.file_name,
                f.kind.name()
            )));
        }
        if let Some(problem) = crate::generators::path_problem(&f.file_name) {
            return Err(refuse(format!("the file name {:?} {problem}", f.file_name)));
        }
        if !generator.owns(&f.file_name) {
            return Err(refuse(format!(
                "it made {:?}, which it does not own: the sink would never prune it",
                f.file_name
            )));
        }
        if !seen.insert(f.file_name.clone()) {
            return Err(refuse(format!(
                "it made {:?} twice; one would overwrite the other",
                f.file_name
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
