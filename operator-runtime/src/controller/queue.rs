//! The controller's work queue, in front of kube's: which object is reconciled next.
//!
//! Two priorities, as controller-runtime's priority queue (on by default since v0.23):
//! objects a watch saw created, changed or deleted go first; the rest waits behind them:
//! resyncs (the sync period), retries after a failure, and a relist's objects that did not
//! change (after a watch expired or the API server restarted, every object comes back). A
//! change is debounced (reconciled once it has been quiet for the debounce); the rest is due
//! at its time.
//!
//! kube's controller only runs what this queue releases, and the queue releases no more than
//! the controller can start (its concurrency, less what runs or was released and has not
//! started): what waits, waits here, where a new change can go ahead of it. An object is
//! never released while it runs or waits to start; a change seen meanwhile is kept and
//! released once that reconcile ended. Starting a reconcile takes the object's entry off the
//! queue (the reconcile reads the latest copy; its outcome queues the next sync or retry).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Mutex;
use std::time::Duration;

use prometheus_client::metrics::gauge::Gauge;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::caches::Key;

/// Which queue an object waits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Priority {
    /// A resync, a retry, a relisted object that did not change.
    Later,
    /// An object a watch saw created, changed or deleted.
    Change,
}

/// One object's place: when it is due, in which queue, and its order among equals.
#[derive(Debug, Clone, Copy)]
struct Entry {
    due: Instant,
    priority: Priority,
    seq: u64,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<Key, Entry>,
    changes: BTreeSet<(Instant, u64, Key)>,
    later: BTreeSet<(Instant, u64, Key)>,
    /// Handed to kube's controller, not started yet.
    released: HashSet<Key>,
    running: HashSet<Key>,
    seq: u64,
}

impl State {
    fn set(&mut self, key: &Key) -> &mut BTreeSet<(Instant, u64, Key)> {
        match self.entries[key].priority {
            Priority::Change => &mut self.changes,
            Priority::Later => &mut self.later,
        }
    }

    fn remove(&mut self, key: &Key) {
        if self.entries.contains_key(key) {
            let entry = self.entries[key];
            self.set(key).remove(&(entry.due, entry.seq, key.clone()));
            self.entries.remove(key);
        }
    }

    fn insert(&mut self, key: Key, due: Instant, priority: Priority) {
        self.remove(&key);
        self.seq += 1;
        let seq = self.seq;
        self.entries
            .insert(key.clone(), Entry { due, priority, seq });
        self.set(&key).insert((due, seq, key));
    }

    fn busy(&self, key: &Key) -> bool {
        self.running.contains(key) || self.released.contains(key)
    }

    /// The next object to release at `now`, changes first; or when to look again (`None`:
    /// when something changes).
    fn pop(&mut self, now: Instant, concurrency: usize) -> Result<Key, Option<Instant>> {
        if concurrency > 0 && self.released.len() + self.running.len() >= concurrency {
            return Err(None);
        }
        let mut wake: Option<Instant> = None;
        let mut found = None;
        'sets: for set in [&self.changes, &self.later] {
            for (due, _, key) in set {
                if *due > now {
                    wake = Some(wake.map_or(*due, |w| w.min(*due)));
                    break;
                }
                if !self.busy(key) {
                    found = Some(key.clone());
                    break 'sets;
                }
            }
        }
        if let Some(key) = found {
            self.remove(&key);
            self.released.insert(key.clone());
            return Ok(key);
        }
        Err(wake)
    }
}

/// See the [module documentation](self).
#[derive(Debug)]
pub(super) struct WorkQueue {
    state: Mutex<State>,
    wake: Notify,
    /// At most this many released or running at once (0: no limit).
    concurrency: usize,
    debounce: Duration,
    /// Set to [`depth`](Self::depth) after each change.
    depth: Gauge,
}

impl WorkQueue {
    pub(super) fn new(concurrency: u16, debounce: Duration) -> Self {
        Self {
            state: Mutex::default(),
            wake: Notify::new(),
            concurrency: usize::from(concurrency),
            debounce,
            depth: Gauge::default(),
        }
    }

    /// The queue, its depth reported on `gauge` (`workqueue_depth`).
    pub(super) fn with_depth_gauge(mut self, gauge: Gauge) -> Self {
        self.depth = gauge;
        self
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes the releasing task and reports the depth, after a change of `state`.
    fn changed_state(&self, state: std::sync::MutexGuard<'_, State>) {
        let depth = state.entries.len() + state.released.len();
        drop(state);
        self.depth.set(i64::try_from(depth).unwrap_or(i64::MAX));
        self.wake.notify_one();
    }

    /// `key` changed: reconciled once it has been quiet for the debounce, ahead of whatever
    /// waits at the later priority (and in place of it: that reconcile reads the change).
    pub(super) fn changed(&self, key: Key) {
        let due = Instant::now() + self.debounce;
        let mut state = self.state();
        state.insert(key, due, Priority::Change);
        self.changed_state(state);
    }

    /// `key` is to be reconciled after `delay`, behind every change: a resync, a retry, a
    /// relisted object that did not change. An earlier entry of the object stays, and so does
    /// a change.
    pub(super) fn later(&self, key: Key, delay: Duration) {
        let due = Instant::now() + delay;
        let mut state = self.state();
        if let Some(entry) = state.entries.get(&key)
            && (entry.priority == Priority::Change || entry.due <= due)
        {
            return;
        }
        state.insert(key, due, Priority::Later);
        self.changed_state(state);
    }

    /// The next object to reconcile, once it is due and the controller can start it.
    pub(super) async fn next(&self) -> Key {
        loop {
            let woken = self.wake.notified();
            tokio::pin!(woken);
            woken.as_mut().enable();
            let wake = {
                let mut state = self.state();
                match state.pop(Instant::now(), self.concurrency) {
                    Ok(key) => {
                        self.changed_state(state);
                        return key;
                    }
                    Err(wake) => wake,
                }
            };
            match wake {
                Some(at) => {
                    tokio::select! {
                        () = woken => {}
                        () = tokio::time::sleep_until(at) => {}
                    }
                }
                None => woken.await,
            }
        }
    }

    /// A reconcile of `key` starts: it no longer waits, and its queued entry (if any) is
    /// taken: it reads the latest copy. Ends when the returned guard is dropped.
    pub(super) fn start(&self, key: Key) -> Running<'_> {
        let mut state = self.state();
        state.released.remove(&key);
        state.remove(&key);
        state.running.insert(key.clone());
        self.changed_state(state);
        Running { queue: self, key }
    }

    /// A released `key` will not start (its object is gone).
    pub(super) fn dropped(&self, key: &Key) {
        let mut state = self.state();
        state.released.remove(key);
        self.changed_state(state);
    }

    /// Objects waiting (released or not): what the depth gauge reports.
    #[cfg(test)]
    fn depth(&self) -> usize {
        usize::try_from(self.depth.get()).unwrap_or(0)
    }
}

/// A reconcile under way (see [`WorkQueue::start`]).
pub(super) struct Running<'a> {
    queue: &'a WorkQueue,
    key: Key,
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut state = self.queue.state();
        state.running.remove(&self.key);
        self.queue.changed_state(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str) -> Key {
        (Some("ns".into()), name.into())
    }

    /// What the queue releases at `after` from now (and, released, counts as waiting to start).
    fn pop_at(queue: &WorkQueue, after: Duration) -> Option<Key> {
        queue
            .state()
            .pop(Instant::now() + after, queue.concurrency)
            .ok()
    }

    #[tokio::test]
    async fn a_change_goes_ahead_of_a_backlog_of_later_work() {
        let queue = WorkQueue::new(1, Duration::ZERO);
        for i in 0..1000 {
            queue.later(key(&format!("old-{i}")), Duration::ZERO);
        }
        let first = queue.next().await;
        assert_eq!(first, key("old-0"));
        queue.changed(key("new"));
        // One released (not started yet): nothing more until it started and ended.
        assert_eq!(pop_at(&queue, Duration::ZERO), None);
        let running = queue.start(first);
        assert_eq!(pop_at(&queue, Duration::ZERO), None);
        drop(running);
        assert_eq!(queue.next().await, key("new"));
        drop(queue.start(key("new")));
        assert_eq!(queue.next().await, key("old-1"));
        assert_eq!(queue.depth(), 999);
    }

    #[test]
    fn changes_are_debounced_and_later_work_is_due_at_its_time() {
        let queue = WorkQueue::new(0, Duration::from_secs(60));
        queue.later(key("b"), Duration::from_secs(600));
        queue.changed(key("a"));
        assert_eq!(pop_at(&queue, Duration::from_secs(59)), None);
        assert_eq!(pop_at(&queue, Duration::from_secs(61)), Some(key("a")));
        assert_eq!(pop_at(&queue, Duration::from_secs(599)), None);
        assert_eq!(pop_at(&queue, Duration::from_secs(601)), Some(key("b")));
    }

    #[test]
    fn a_change_again_restarts_its_quiet_time() {
        let queue = WorkQueue::new(0, Duration::from_secs(60));
        queue.changed(key("a"));
        std::thread::sleep(Duration::from_millis(20));
        queue.changed(key("a"));
        // After the first change's quiet time, before the second's.
        let first_due = Duration::from_secs(60) - Duration::from_millis(10);
        assert_eq!(pop_at(&queue, first_due), None);
        assert_eq!(pop_at(&queue, Duration::from_secs(61)), Some(key("a")));
    }

    #[test]
    fn one_entry_per_object_the_earliest_later_and_a_change_over_both() {
        let queue = WorkQueue::new(0, Duration::ZERO);
        queue.later(key("a"), Duration::from_secs(10));
        queue.later(key("a"), Duration::from_secs(5));
        queue.later(key("a"), Duration::from_secs(60));
        assert_eq!(queue.depth(), 1);
        assert_eq!(pop_at(&queue, Duration::from_secs(4)), None);
        assert_eq!(pop_at(&queue, Duration::from_secs(6)), Some(key("a")));
        drop(queue.start(key("a")));
        // A resync queued, then a change: the change replaces it; a later resync does not
        // push the change back.
        queue.later(key("b"), Duration::from_secs(3600));
        queue.changed(key("b"));
        queue.later(key("b"), Duration::ZERO);
        assert_eq!(queue.depth(), 1);
        assert_eq!(pop_at(&queue, Duration::ZERO), Some(key("b")));
    }

    #[test]
    fn an_object_is_not_released_while_it_runs_and_its_change_follows() {
        let queue = WorkQueue::new(0, Duration::ZERO);
        queue.changed(key("a"));
        let a = pop_at(&queue, Duration::ZERO).unwrap();
        let running = queue.start(a);
        queue.changed(key("a"));
        queue.changed(key("b"));
        assert_eq!(pop_at(&queue, Duration::ZERO), Some(key("b")));
        assert_eq!(pop_at(&queue, Duration::ZERO), None);
        drop(running);
        assert_eq!(pop_at(&queue, Duration::ZERO), Some(key("a")));
    }

    #[test]
    fn starting_takes_the_entry_off_the_queue() {
        let queue = WorkQueue::new(0, Duration::ZERO);
        queue.changed(key("a"));
        queue.later(key("b"), Duration::from_secs(3600));
        let a = pop_at(&queue, Duration::ZERO).unwrap();
        // A change seen between the release and the start: the reconcile reads it.
        queue.changed(key("a"));
        let _a = queue.start(a);
        // A resync queued for a later time: the reconcile queues the next one itself.
        let _b = queue.start(key("b"));
        assert_eq!(queue.depth(), 0);
    }

    #[test]
    fn a_released_object_that_is_gone_frees_its_slot() {
        let queue = WorkQueue::new(1, Duration::ZERO);
        queue.changed(key("gone"));
        queue.changed(key("b"));
        let gone = pop_at(&queue, Duration::ZERO).unwrap();
        assert_eq!(gone, key("gone"));
        assert_eq!(pop_at(&queue, Duration::ZERO), None);
        queue.dropped(&gone);
        assert_eq!(pop_at(&queue, Duration::ZERO), Some(key("b")));
    }
}
