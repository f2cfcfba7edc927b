//! The worker threads' shape, shared by the stages that spread work over the cores.

/// The stack of a worker thread. Parsing, schema building and rendering recurse once per
/// level of nesting, up to [`crate::source::MAX_NESTING`] levels; the default 2 MiB of a
/// spawned thread is not enough for that in a debug build (the main thread has 8 MiB).
/// Only the pages used are committed.
pub(crate) const WORKER_STACK: usize = 64 * 1024 * 1024;

/// `f` over `items` on up to `available_parallelism` threads, results in the order of `items`.
/// Small inputs stay on the calling thread.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    const MIN_PER_THREAD: usize = 16;
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len() / MIN_PER_THREAD)
        .max(1);
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| {
                // Rendering recurses once per level of nesting, as parsing does.
                std::thread::Builder::new()
                    .stack_size(WORKER_STACK)
                    .spawn_scoped(scope, move || part.iter().map(f).collect::<Vec<R>>())
                    .expect("a worker thread starts")
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
