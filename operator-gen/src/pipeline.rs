//! How generation uses the machine's cores.
//!
//! syn's syntax trees cannot leave the thread that parsed them (proc-macro2 keeps their
//! source positions in a thread-local map), so the work is split in two rounds on the same
//! worker threads:
//!
//! 1. Each worker parses its share of the files and reports what crosses threads: the
//!    declarations and imports of each file ([`FileSummary`]), its root kinds by
//!    (group, kind), its `#[rbac]` markers, and its marker errors.
//! 2. The calling thread builds the crate-wide [`Skeleton`] for name resolution and hands out
//!    the CRDs, each preferably to the worker that parsed its kind's file. Workers build the
//!    schemas and CRDs with their own trees; a type declared in a file of another worker is
//!    parsed again there, on first use.
//!
//! The result does not depend on the number of threads: CRDs come out sorted by group and
//! kind, roles are normalised, errors are sorted and deduplicated.

use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;

use crate::diagnostics::Diagnostics;
use crate::markers::{self, MetaSource, RbacMarker};
use crate::schema::SchemaBuilder;
use crate::source::{FileSummary, Index, Input, Skeleton, SourceFile, TypeDecl};
use crate::{Error, Generated, LocatedError, Options, crd, output, rbac};

/// Inputs smaller than this (in bytes) stay on the calling thread.
const PARALLEL_FROM_BYTES: usize = 64 * 1024;

/// What round one found in one file.
#[derive(Default)]
struct FileFacts {
    summary: FileSummary,
    /// (position in the file's declarations, group, kind) of each root kind.
    kinds: Vec<(usize, String, String)>,
    rbac: Vec<RbacMarker>,
    errors: Vec<LocatedError>,
}

/// Round one's report of a worker: facts per file of its share, or the syntax errors.
type RoundOne = Result<Vec<FileFacts>, Vec<LocatedError>>;

/// What the calling thread decides between the rounds.
struct Plan {
    skeleton: Skeleton,
    /// (group, kind) → declaration ids of its versions, sorted by group and kind.
    crds: Vec<((String, String), Vec<usize>)>,
    /// Per worker, the positions in `crds` it builds.
    assigned: Vec<Vec<usize>>,
}

/// Round two's report of a worker: built CRDs by position in `Plan::crds`, and problems.
type RoundTwo = (Vec<(usize, CustomResourceDefinition)>, Vec<LocatedError>);

pub fn run(inputs: &[Input], options: &Options) -> Result<Generated, Error> {
    let total: usize = inputs.iter().map(|i| i.text.len()).sum();
    let threads = if total < PARALLEL_FROM_BYTES {
        1
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    };
    run_on(inputs, options, threads)
}

/// [`run`] on up to `threads` workers (one per input at most).
fn run_on(inputs: &[Input], options: &Options, threads: usize) -> Result<Generated, Error> {
    let threads = threads.min(inputs.len()).max(1);
    let shares = split_by_size(inputs, threads);
    if threads == 1 {
        let cells = cells(inputs.len());
        let facts = round_one(inputs, shares[0].clone(), &cells).map_err(Error::Invalid)?;
        let (plan, rbac, mut errors) = plan(inputs, vec![facts], 1, &shares);
        let built = round_two(0, inputs, &cells, &plan, options);
        return finish(plan, vec![built], rbac, &mut errors, options);
    }

    std::thread::scope(|scope| {
        let (report, reports) = mpsc::channel::<(usize, RoundOne)>();
        let mut plan_senders = Vec::new();
        let mut workers = Vec::new();
        for (w, share) in shares.iter().enumerate() {
            let (plan_sender, plan_receiver) = mpsc::channel::<Option<std::sync::Arc<Plan>>>();
            plan_senders.push(plan_sender);
            let report = report.clone();
            let share = share.clone();
            workers.push(scope.spawn(move || {
                let cells = cells(inputs.len());
                let _ = report.send((w, round_one(inputs, share, &cells)));
                // Without this sender the calling thread sees when every worker reported
                // or died, and never waits on a panicked one.
                drop(report);
                match plan_receiver.recv() {
                    Ok(Some(plan)) => round_two(w, inputs, &cells, &plan, options),
                    _ => (Vec::new(), Vec::new()),
                }
            }));
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
            join(workers);
            syntax.sort();
            return Err(Error::Invalid(syntax));
        }
        let (plan, rbac, mut errors) = plan(inputs, facts, threads, &shares);
        let plan = std::sync::Arc::new(plan);
        for sender in &plan_senders {
            let _ = sender.send(Some(plan.clone()));
        }
        let built = join(workers);
        let plan = std::sync::Arc::try_unwrap(plan)
            .unwrap_or_else(|_| unreachable!("every worker has finished"));
        finish(plan, built, rbac, &mut errors, options)
    })
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

/// `parts` consecutive, non-empty shares of the inputs (at least `parts` of them) with about
/// the same number of bytes each.
fn split_by_size(inputs: &[Input], parts: usize) -> Vec<Range<usize>> {
    let total: usize = inputs.iter().map(|i| i.text.len()).sum();
    let mut shares = Vec::with_capacity(parts);
    let (mut start, mut seen) = (0, 0);
    for (i, input) in inputs.iter().enumerate() {
        let ideal = total * (shares.len() + 1) / parts;
        let after = seen + input.text.len();
        let files_left = inputs.len() - i;
        let shares_left = parts - shares.len();
        // Cut before this file when that lands nearer the ideal than cutting after it, or
        // when the shares still to come need every file that is left.
        let cut_before = i > start
            && shares_left > 1
            && (ideal.abs_diff(seen) < ideal.abs_diff(after) || files_left < shares_left);
        if cut_before {
            shares.push(start..i);
            start = i;
        }
        seen = after;
    }
    shares.push(start..inputs.len());
    debug_assert_eq!(shares.len(), parts.min(inputs.len().max(1)));
    shares
}

/// Parses the files of `share` into `cells` and gathers their facts.
fn round_one(inputs: &[Input], share: Range<usize>, cells: &[OnceCell<SourceFile>]) -> RoundOne {
    let mut all = Vec::with_capacity(share.len());
    let mut syntax = Vec::new();
    for no in share.clone() {
        match inputs[no].parse() {
            Ok(file) => {
                let _ = cells[no].set(file);
            }
            Err(e) => syntax.push(e),
        }
    }
    if !syntax.is_empty() {
        return Err(syntax);
    }
    for cell in &cells[share] {
        all.push(file_facts(cell.get().expect("parsed above")));
    }
    Ok(all)
}

fn file_facts(file: &SourceFile) -> FileFacts {
    let summary = crate::source::summarize(file);
    let mut facts = FileFacts::default();
    let mut problems = Vec::new();
    for (no, item) in crate::source::type_items(file).into_iter().enumerate() {
        let decl = TypeDecl {
            item,
            module: &summary.decls[no].0,
            file,
        };
        let mut diags = Diagnostics::new();
        if let Some(k) = crd::kind_decl(decl, &mut diags) {
            facts
                .kinds
                .push((no, k.resource.group.value.clone(), k.kind()));
        }
        problems.push((file, diags));
    }
    for attr in crate::source::rbac_attrs(file) {
        let mut diags = Diagnostics::new();
        facts
            .rbac
            .extend(markers::parse_rbac(MetaSource::Attr(attr), &mut diags));
        problems.push((file, diags));
    }
    facts.errors = located(problems, Vec::new());
    facts.summary = summary;
    facts
}

/// Builds the skeleton and hands out the CRDs; returns the plan, the RBAC markers in input
/// order, and round one's marker errors.
fn plan(
    inputs: &[Input],
    per_worker: Vec<Vec<FileFacts>>,
    threads: usize,
    shares: &[Range<usize>],
) -> (Plan, Vec<RbacMarker>, Vec<LocatedError>) {
    let files: Vec<FileFacts> = per_worker.into_iter().flatten().collect();
    debug_assert_eq!(files.len(), inputs.len());
    let mut summaries = Vec::with_capacity(files.len());
    let mut kinds = Vec::with_capacity(files.len());
    let mut rbac = Vec::new();
    let mut errors = Vec::new();
    for f in files {
        summaries.push(f.summary);
        kinds.push(f.kinds);
        rbac.extend(f.rbac);
        errors.extend(f.errors);
    }
    let skeleton = Skeleton::build(summaries);
    let mut by_group_kind: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (file_no, file_kinds) in kinds.into_iter().enumerate() {
        let first_decl = skeleton.file_decls[file_no].start;
        for (no, group, kind) in file_kinds {
            by_group_kind
                .entry((group, kind))
                .or_default()
                .push(first_decl + no);
        }
    }
    let crds: Vec<_> = by_group_kind.into_iter().collect();
    // Each CRD goes to the worker that parsed its first version's file: the shares are
    // balanced by size already, and building a kind elsewhere means parsing its file twice.
    let mut assigned: Vec<Vec<usize>> = vec![Vec::new(); threads];
    for (pos, (_, ids)) in crds.iter().enumerate() {
        let file = skeleton.decls[ids[0]].file;
        let w = shares.iter().position(|s| s.contains(&file)).unwrap_or(0);
        assigned[w].push(pos);
    }
    (
        Plan {
            skeleton,
            crds,
            assigned,
        },
        rbac,
        errors,
    )
}

/// Builds the CRDs assigned to worker `w`.
fn round_two(
    w: usize,
    inputs: &[Input],
    cells: &[OnceCell<SourceFile>],
    plan: &Plan,
    options: &Options,
) -> RoundTwo {
    let index = Index::new(&plan.skeleton, inputs, cells);
    let mut builder = SchemaBuilder::new(&index, options);
    let mut problems = Vec::new();
    let mut built = Vec::new();
    for &pos in &plan.assigned[w] {
        let ((group, kind), ids) = &plan.crds[pos];
        // Marker errors of these kinds were reported in round one, by the file's worker.
        let kinds: Vec<crd::KindDecl<'_>> = ids
            .iter()
            .filter_map(|&id| crd::kind_decl(index.decl(id), &mut Diagnostics::new()))
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
            built.push((pos, c));
        }
    }
    let errors = located(problems, builder.file_problems);
    (built, errors)
}

/// Puts the workers' CRDs in order and the RBAC roles next to them, or returns every problem.
fn finish(
    plan: Plan,
    built: Vec<RoundTwo>,
    rbac: Vec<RbacMarker>,
    errors: &mut Vec<LocatedError>,
    options: &Options,
) -> Result<Generated, Error> {
    let mut crds: Vec<(usize, CustomResourceDefinition)> = Vec::with_capacity(plan.crds.len());
    for (c, e) in built {
        crds.extend(c);
        errors.extend(e);
    }
    if !errors.is_empty() {
        let mut errors = std::mem::take(errors);
        errors.sort();
        errors.dedup();
        return Err(Error::Invalid(errors));
    }
    crds.sort_by_key(|(pos, _)| *pos);
    Ok(Generated {
        crds: crds.into_iter().map(|(_, c)| c).collect(),
        roles: rbac::build_roles(&rbac, &options.role_name),
    })
}

/// Problems with their file positions, ready to cross threads.
fn located<'a>(
    problems: Vec<(&'a SourceFile, Diagnostics)>,
    file_problems: Vec<(&'a SourceFile, proc_macro2::Span, String)>,
) -> Vec<LocatedError> {
    problems
        .into_iter()
        .flat_map(|(file, diags)| {
            diags
                .into_vec()
                .into_iter()
                .map(move |d| LocatedError::new(file, d.span, d.message))
        })
        .chain(
            file_problems
                .into_iter()
                .map(|(file, span, msg)| LocatedError::new(file, span, msg)),
        )
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    fn repo(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
    }

    /// The outcome as text: CRDs and roles, or every error message.
    fn outcome(inputs: &[Input], options: &Options, threads: usize) -> String {
        match run_on(inputs, options, threads) {
            Ok(g) => format!("{:?}\n{:?}", g.crds, g.roles),
            Err(e) => e.to_string(),
        }
    }

    fn same_on_any_number_of_threads(inputs: &[Input], options: &Options) -> String {
        let one = outcome(inputs, options, 1);
        for threads in [2, 3, 5] {
            assert_eq!(
                one,
                outcome(inputs, options, threads),
                "{threads} threads differ from one"
            );
        }
        one
    }

    #[test]
    fn fixtures_come_out_the_same_on_any_number_of_threads() {
        let mut checked = 0;
        for case in std::fs::read_dir(repo("testdata/parity")).unwrap() {
            let rust = case.unwrap().path().join("rust");
            if !rust.is_dir() {
                continue;
            }
            let inputs = crate::source::read_inputs(std::slice::from_ref(&rust)).unwrap();
            let options = Options {
                allow_dangerous_types: true,
                ..Options::default()
            };
            let out = same_on_any_number_of_threads(&inputs, &options);
            assert!(
                out.contains("CustomResourceDefinition") || out.contains("ClusterRole"),
                "{}: {out}",
                rust.display()
            );
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} parity cases found");
        let memcached = crate::source::read_inputs(&[repo("memcached/src")]).unwrap();
        same_on_any_number_of_threads(&memcached, &Options::default());
    }

    #[test]
    fn errors_come_out_the_same_on_any_number_of_threads() {
        // Every error fixture in one crate, each file its own module: errors from all
        // workers, merged.
        let inputs = crate::source::read_inputs(&[repo("operator-gen/tests/errors")]).unwrap();
        assert!(inputs.len() > 10);
        let out = same_on_any_number_of_threads(&inputs, &Options::default());
        assert!(out.contains("recursive type"), "{out}");
        assert!(out.contains("rbac_mistakes.rs:"), "{out}");
    }

    #[test]
    fn a_type_from_another_workers_file_is_parsed_where_it_is_needed() {
        let input = |name: &str, text: &str| Input {
            path: PathBuf::from(format!("src/{name}.rs")),
            root: PathBuf::from("src"),
            text: text.to_string(),
        };
        let inputs = vec![
            input(
                "a",
                "/// Thing is a kind.\n#[resource(group = \"x.example.com\", version = \"v1\", kind = \"Thing\")]\n\
                 pub struct Thing { pub metadata: ObjectMeta, pub spec: crate::b::ThingSpec }\n",
            ),
            input(
                "b",
                "/// ThingSpec is the spec.\npub struct ThingSpec {\n    /// Size is a size.\n    #[validation(minimum = 1)]\n    pub size: i32,\n}\n",
            ),
        ];
        let shares = split_by_size(&inputs, 2);
        assert_eq!(shares, vec![0..1, 1..2]);
        let out = same_on_any_number_of_threads(&inputs, &Options::default());
        assert!(out.contains("Size is a size."), "{out}");
        assert!(out.contains("minimum: Some(1.0)"), "{out}");
    }

    #[test]
    fn crds_come_out_sorted_by_group_and_kind_whoever_built_them() {
        let kind = |k: &str| {
            format!(
                "#[resource(group = \"x.example.com\", version = \"v1\", kind = \"{k}\")]\n\
                 pub struct {k} {{ pub metadata: ObjectMeta, pub spec: {k}Spec }}\n\
                 pub struct {k}Spec {{ pub size: i32 }}\n"
            )
        };
        let inputs: Vec<Input> = [("a", ["Bravo", "Delta"]), ("b", ["Alpha", "Charlie"])]
            .iter()
            .map(|(file, kinds)| Input {
                path: PathBuf::from(format!("src/{file}.rs")),
                root: PathBuf::from("src"),
                text: kinds.iter().map(|k| kind(k)).collect(),
            })
            .collect();
        same_on_any_number_of_threads(&inputs, &Options::default());
        let generated = run_on(&inputs, &Options::default(), 2).unwrap();
        let kinds: Vec<&str> = generated
            .crds
            .iter()
            .map(|c| c.spec.names.kind.as_str())
            .collect();
        assert_eq!(kinds, ["Alpha", "Bravo", "Charlie", "Delta"]);
    }

    #[test]
    fn syntax_errors_of_every_share_are_reported() {
        let input = |name: &str, text: &str| Input {
            path: PathBuf::from(format!("src/{name}.rs")),
            root: PathBuf::from("src"),
            text: text.to_string(),
        };
        let inputs = vec![
            input("a", "pub struct A {"),
            input("b", "pub struct B;"),
            input("c", "pub struct C { x: }"),
        ];
        let out = same_on_any_number_of_threads(&inputs, &Options::default());
        assert!(out.contains("src/a.rs:1:"), "{out}");
        assert!(out.contains("src/c.rs:1:"), "{out}");
    }

    #[test]
    fn shares_are_consecutive_and_balanced_by_size() {
        let sized = |sizes: &[usize]| -> Vec<Input> {
            sizes
                .iter()
                .map(|n| Input {
                    path: PathBuf::new(),
                    root: PathBuf::new(),
                    text: "x".repeat(*n),
                })
                .collect()
        };
        assert_eq!(split_by_size(&sized(&[10; 10]), 2), vec![0..5, 5..10]);
        assert_eq!(split_by_size(&sized(&[10; 10]), 3), vec![0..3, 3..7, 7..10]);
        assert_eq!(split_by_size(&sized(&[100, 1, 1, 1]), 2), vec![0..1, 1..4]);
        assert_eq!(split_by_size(&sized(&[1, 1, 1, 100]), 2), vec![0..3, 3..4]);
        assert_eq!(split_by_size(&sized(&[5, 5]), 2), vec![0..1, 1..2]);
        assert_eq!(split_by_size(&sized(&[5]), 1), vec![0..1]);
    }
}
