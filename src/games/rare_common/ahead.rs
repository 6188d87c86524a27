//! The second core: a thread that gathers, a chunk of heaps ahead, the
//! values of the splits whose larger part lies before the chunk being
//! computed.
//!
//! The heaps go in chunks of [`CHUNK`]. For a part s ≥ [`FAR`] =
//! (D + 1)·CHUNK + 8, D = [`DEPTH`], the split (s, m − s) of every heap of
//! chunk k + D has its larger part before chunk k, so its values are known
//! while chunk k is computed: the thread takes parts from some index on
//! (the prefix's past it and the rare heaps) for chunk k + D while the
//! engine computes chunk k with the parts before it. At the start of each
//! chunk the engine hands over the values of the chunk before and the
//! parts found since, asks for chunk k + D, and takes the sets of chunk k,
//! asked for D chunks ago: the thread may run up to D chunks ahead, so
//! that neither side waits on the other's every hiccup.
//!
//! **Balance.** The engine's own work (each heap's walk, its splits below
//! 8) is fixed; the parts are shared. The split point starts at FAR and
//! moves: the engine takes more parts each time it had to wait for the
//! thread's sets, and gives some back each time they were there already,
//! so that both sides end up about as busy (on `octal:0.161` the thread
//! takes about 60% of the parts).
//!
//! The thread keeps its own copy of the last values it reads (a ring
//! written twice, like `stream::kept`), so it shares nothing with the
//! engine but the two channels. Its work changes no value, only who does
//! it: a chunk whose sets did not come (the first, one after the parts were
//! listed anew) is the engine's alone. Each side waits for the other by
//! polling the channel a little, then sleeping on it: spinning longer
//! would cost little on an idle machine and a great deal on a busy one,
//! where the two threads may share a core.

use crate::arch::grundy_pairs::{mark_splits, LaneSets, Part, LANES};
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::thread::JoinHandle;

/// The heaps of a chunk.
pub(super) const CHUNK: u64 = 32;

/// How many chunks ahead the thread works.
const DEPTH: u64 = 4;

/// The least part the thread takes: the splits of chunk k + D with a part
/// this large have their larger part before chunk k.
pub(super) const FAR: u64 = (DEPTH + 1) * CHUNK + LANES as u64;

/// Blocks of eight heaps in a chunk.
const BLOCKS: usize = (CHUNK / LANES as u64) as usize;

/// Polls before a waiting side sleeps (about a microsecond).
const SPINS: u32 = 400;

/// How many parts the engine takes over when it had to wait, and gives
/// back when it did not.
const TAKE_OVER: usize = 16;
const GIVE_BACK: usize = 4;

/// What the engine sends at the start of a chunk.
struct Job {
    /// The values since the last job (or the ring's whole content, when
    /// `parts_from` is 0).
    values: Vec<u16>,
    /// The heap after the last of them: `chunk` − D·CHUNK.
    values_end: u64,
    /// Where the parts sent start in the thread's list (0: a new list).
    parts_from: usize,
    /// The parts from there on.
    parts: Vec<Part>,
    /// The chunk whose sets to gather.
    chunk: u64,
    /// The index of the first part the thread takes.
    first_part: usize,
    /// The value limit: the sets hold the values below it.
    limit: usize,
}

/// What the thread sends back: the sets of the blocks of a chunk.
struct Gathered {
    chunk: u64,
    /// The parts taken: `first_part` … `end` − 1.
    parts: (usize, usize),
    sets: Box<[LaneSets; BLOCKS]>,
}

/// The engine's side of the thread.
pub(super) struct Ahead {
    jobs: Option<SyncSender<Job>>,
    gathered: Receiver<Gathered>,
    thread: Option<JoinHandle<()>>,
    /// The sets of the current chunk, if they came.
    current: Option<Gathered>,
    /// The chunks asked for and not yet taken, in order.
    asked: VecDeque<u64>,
    /// The values handed over end before this heap.
    sent_values: u64,
    /// The parts handed over.
    sent_parts: usize,
    /// The ring length of the thread's copy.
    ring: usize,
    /// The index of the first part the thread takes.
    split: usize,
}

impl Ahead {
    /// Starts the thread, for a game whose splits take `takes`, reading
    /// parts up to `ring` − 2·CHUNK heaps back.
    pub(super) fn start(takes: Vec<u64>, ring: usize) -> Option<Ahead> {
        let (jobs, job_inbox) = mpsc::sync_channel::<Job>(DEPTH as usize);
        let (gathered_outbox, gathered) = mpsc::sync_channel::<Gathered>(DEPTH as usize);
        let thread = std::thread::Builder::new()
            .name("grundy-ahead".into())
            .spawn(move || serve(job_inbox, gathered_outbox, takes, ring))
            .ok()?;
        Some(Ahead {
            jobs: Some(jobs),
            gathered,
            thread: Some(thread),
            current: None,
            asked: VecDeque::new(),
            sent_values: 0,
            sent_parts: 0,
            ring,
            split: (FAR - LANES as u64) as usize,
        })
    }

    /// Forgets the parts handed over (the engine listed them anew), and
    /// the sets asked for with them.
    pub(super) fn forget_parts(&mut self) {
        self.sent_parts = 0;
        self.current = None;
        while self.asked.pop_front().is_some() {
            let _ = wait(&self.gathered);
        }
        self.split = (FAR - LANES as u64) as usize;
    }

    /// At the start of chunk `chunk` (a multiple of [`CHUNK`]): takes the
    /// sets of this chunk if they were asked for, and asks for chunk
    /// `chunk` + D·CHUNK, handing over `before`, the values that end before
    /// `chunk`, and the `parts` not yet sent.
    pub(super) fn next_chunk(&mut self, chunk: u64, before: &[u16], parts: &[Part], limit: usize) {
        self.current = None;
        while let Some(&asked) = self.asked.front().filter(|&&asked| asked <= chunk) {
            self.asked.pop_front();
            let Some((gathered, waited)) = wait(&self.gathered) else {
                return;
            };
            self.split = match waited {
                true => self.split + TAKE_OVER,
                false => self.split.saturating_sub(GIVE_BACK),
            }
            .clamp((FAR - LANES as u64) as usize, parts.len());
            if asked == chunk {
                self.current = Some(gathered);
            }
        }
        if self.asked.len() as u64 >= DEPTH {
            return;
        }
        let first_part = self.split.max((FAR - LANES as u64) as usize);
        if parts.len() <= first_part {
            return;
        }
        // The values since the last job, or the ring's whole content.
        let new = chunk.saturating_sub(self.sent_values) as usize;
        let restart = self.sent_parts == 0 || new > self.ring || new > before.len();
        let count = match restart {
            true => self.ring.min(before.len()),
            false => new,
        };
        let parts_from = if restart { 0 } else { self.sent_parts };
        let ask = chunk + DEPTH * CHUNK;
        let job = Job {
            values: before[before.len() - count..].to_vec(),
            values_end: chunk,
            parts_from,
            parts: parts[parts_from..].to_vec(),
            chunk: ask,
            first_part,
            limit,
        };
        if self
            .jobs
            .as_ref()
            .is_some_and(|jobs| jobs.send(job).is_ok())
        {
            self.asked.push_back(ask);
            self.sent_values = chunk;
            self.sent_parts = parts.len();
        }
    }

    /// The sets of the block at `first` gathered by the thread, with the
    /// parts they hold (`from` … `to` − 1), if it gathered its chunk.
    pub(super) fn sets_for(&self, first: u64) -> Option<(usize, usize, &LaneSets)> {
        let gathered = self.current.as_ref()?;
        let block = first.checked_sub(gathered.chunk)? / LANES as u64;
        let sets = gathered.sets.get(block as usize)?;
        Some((gathered.parts.0, gathered.parts.1, sets))
    }
}

impl Drop for Ahead {
    fn drop(&mut self) {
        // Closing the channel ends the thread.
        self.jobs = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The next item of `from`, and whether it had to wait for it: it spins a
/// little first (a chunk takes microseconds, a sleep and wake-up through
/// the kernel about as long), then sleeps. `None` when the other side is
/// gone.
fn wait<T>(from: &Receiver<T>) -> Option<(T, bool)> {
    for spin in 0..SPINS {
        match from.try_recv() {
            Ok(item) => return Some((item, spin > 0)),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
    from.recv().ok().map(|item| (item, true))
}

/// The thread: a copy of the last values and the parts, and the sets of
/// each chunk asked for.
fn serve(jobs: Receiver<Job>, gathered: SyncSender<Gathered>, takes: Vec<u64>, ring: usize) {
    let mut copy = Copy::new(ring);
    let mut parts: Vec<Part> = Vec::new();
    while let Some((job, _)) = wait(&jobs) {
        if job.parts_from == 0 {
            copy = Copy::new(ring);
            copy.end = job.values_end - job.values.len() as u64;
            parts.clear();
        }
        debug_assert_eq!(copy.end + job.values.len() as u64, job.values_end);
        copy.extend(&job.values);
        parts.truncate(job.parts_from);
        parts.extend_from_slice(&job.parts);
        let result = gather(&copy, &parts, &takes, &job);
        if gathered.send(result).is_err() {
            return;
        }
    }
}

/// The sets of the blocks of the chunk of `job`, from its first part on,
/// of the parts whose splits are splits of every heap of the chunk and
/// whose larger parts the copy holds.
fn gather(copy: &Copy, parts: &[Part], takes: &[u64], job: &Job) -> Gathered {
    let (chunk, first_part) = (job.chunk, job.first_part);
    let largest_take = takes.last().copied().unwrap_or(0);
    let known = copy.end;
    // The heaps' rests are at least chunk − t; the larger parts end before
    // `known`, at least chunk − t − known + 1 heaps below each rest.
    let lowest_rest = chunk - largest_take;
    let held = copy.len() as u64;
    let usable = parts.partition_point(|part| {
        let size = u64::from(part.size);
        2 * size < lowest_rest && size <= held + (lowest_rest - known)
    });
    let end = usable.max(first_part);
    let mut sets = Box::new([LaneSets::new(job.limit); BLOCKS]);
    if end > first_part {
        for (block, set) in sets.iter_mut().enumerate() {
            let first = chunk + (block * LANES) as u64;
            for &take in takes {
                let gap = (first - take - known) as usize;
                mark_splits(copy.values(), gap, &parts[first_part..end], set);
            }
        }
    }
    Gathered {
        chunk,
        parts: (first_part, end),
        sets,
    }
}

/// The thread's copy of the last values: a ring written twice, so the
/// last `ring` values are one slice.
struct Copy {
    values: Vec<u16>,
    ring: usize,
    /// The heap after the last value.
    end: u64,
    /// How many values it holds (at most `ring`).
    held: usize,
}

impl Copy {
    fn new(ring: usize) -> Copy {
        Copy {
            values: vec![0; 2 * ring],
            ring,
            end: 0,
            held: 0,
        }
    }

    /// Appends `values`, the heaps after the last (or the first values).
    fn extend(&mut self, values: &[u16]) {
        for &value in values {
            let at = (self.end % self.ring as u64) as usize;
            self.values[at] = value;
            self.values[at + self.ring] = value;
            self.end += 1;
        }
        self.held = (self.held + values.len()).min(self.ring);
    }

    /// How many values it holds.
    fn len(&self) -> usize {
        self.held
    }

    /// The values held, oldest first.
    fn values(&self) -> &[u16] {
        let at = ((self.end - self.held as u64) % self.ring as u64) as usize;
        &self.values[at..at + self.held]
    }
}
