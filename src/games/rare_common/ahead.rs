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
//! **Never waiting.** The engine does not wait for the thread: the sets of
//! a chunk that are not there when its turn comes are not used, and the
//! engine enumerates all the parts of that chunk itself. The thread's work
//! changes no value, only who does it, so a late, busy or descheduled
//! thread (the machine is shared) costs the engine nothing but the parts
//! it takes back; at worst the run goes as fast as on one thread.
//!
//! The thread runs at a lower priority (nice 10): on an idle core it goes
//! as fast, and on a busy machine it does not take the engine's share.
//!
//! **Balance.** The engine's own work (each heap's walk, its splits below
//! 8) is fixed; the parts are shared. The split point starts at FAR and
//! moves: the engine takes more parts each time a chunk's sets were late,
//! and gives some back each time they came in time, so that the thread's
//! sets come just in time and both sides are about as busy.
//!
//! The thread keeps its own copy of the last values it reads (a ring
//! written twice, like `stream::kept`), so it shares nothing with the
//! engine but the two channels. Its work changes no value, only who does
//! it: a chunk whose sets did not come (the first, one after the parts were
//! listed anew) is the engine's alone. The thread waits for the next job
//! by polling its channel a while, then sleeping on it.

use crate::arch::grundy_pairs::{mark_splits, LaneSets, Part, LANES};
use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError, TrySendError};
use std::thread::JoinHandle;

/// The heaps of a chunk.
pub(super) const CHUNK: u64 = 32;

/// How many chunks ahead the thread works.
const DEPTH: u64 = 4;

/// The first part the thread takes at the start: the part at [`FAR`].
const FIRST_SPLIT: usize = (FAR - LANES as u64) as usize;

/// The least part the thread takes: the splits of chunk k + D with a part
/// this large have their larger part before chunk k.
pub(super) const FAR: u64 = (DEPTH + 1) * CHUNK + LANES as u64;

/// Blocks of eight heaps in a chunk.
const BLOCKS: usize = (CHUNK / LANES as u64) as usize;

/// Polls before the waiting thread sleeps (some microseconds).
const SPINS: u32 = 300;

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
    /// The generation of the parts.
    generation: u64,
}

/// What the thread sends back: the sets of the blocks of a chunk.
struct Gathered {
    chunk: u64,
    generation: u64,
    /// The parts taken: `first_part` … `end` − 1.
    parts: (usize, usize),
    sets: Box<[LaneSets; BLOCKS]>,
}

/// The engine's side of the thread.
pub(super) struct Ahead {
    jobs: Option<SyncSender<Job>>,
    gathered: Option<Receiver<Gathered>>,
    thread: Option<JoinHandle<()>>,
    /// The sets of the current chunk, if they came in time.
    current: Option<Gathered>,
    /// Sets that came for chunks to come, in order.
    early: VecDeque<Gathered>,
    /// The chunks asked for whose turn has not come, in order.
    asked: VecDeque<u64>,
    /// The values handed over end before this heap.
    sent_values: u64,
    /// The parts handed over.
    sent_parts: usize,
    /// The ring length of the thread's copy.
    ring: usize,
    /// The index of the first part the thread takes.
    split: usize,
    /// Raised when the parts are listed anew: sets gathered from the
    /// parts of an older generation are dropped.
    generation: u64,
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
            gathered: Some(gathered),
            thread: Some(thread),
            current: None,
            early: VecDeque::new(),
            asked: VecDeque::new(),
            sent_values: 0,
            sent_parts: 0,
            ring,
            split: FIRST_SPLIT,
            generation: 0,
        })
    }

    /// Forgets the parts handed over (the engine listed them anew), and
    /// the sets asked for with them.
    pub(super) fn forget_parts(&mut self) {
        self.sent_parts = 0;
        self.current = None;
        self.early.clear();
        self.asked.clear();
        self.split = FIRST_SPLIT;
        self.generation += 1;
    }

    /// At the start of chunk `chunk` (a multiple of [`CHUNK`]): takes the
    /// sets of this chunk if they came in time, and asks for chunk
    /// `chunk` + D·CHUNK, handing over `before`, the values that end before
    /// `chunk`, and the `parts` not yet sent. It never waits: a chunk whose
    /// sets did not come is the engine's alone, and the thread is asked
    /// for none while it is D chunks behind.
    pub(super) fn next_chunk(&mut self, chunk: u64, before: &[u16], parts: &[Part], limit: usize) {
        while let Some(gathered) = self.gathered.as_ref().and_then(|from| from.try_recv().ok()) {
            if gathered.generation == self.generation {
                self.early.push_back(gathered);
            }
        }
        while self
            .early
            .front()
            .is_some_and(|gathered| gathered.chunk < chunk)
        {
            self.early.pop_front();
        }
        self.current = match self
            .early
            .front()
            .is_some_and(|gathered| gathered.chunk == chunk)
        {
            true => self.early.pop_front(),
            false => None,
        };
        let mut was_asked = false;
        while let Some(&asked) = self.asked.front().filter(|&&asked| asked <= chunk) {
            was_asked |= asked == chunk;
            self.asked.pop_front();
        }
        if was_asked {
            self.split = match self.current.is_some() {
                true => self.split.saturating_sub(GIVE_BACK),
                false => self.split + TAKE_OVER,
            }
            .clamp(FIRST_SPLIT, parts.len().max(FIRST_SPLIT));
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
            first_part: self.split,
            limit,
            generation: self.generation,
        };
        match self.jobs.as_ref().map(|jobs| jobs.try_send(job)) {
            Some(Ok(())) => {
                self.asked.push_back(ask);
                self.sent_values = chunk;
                self.sent_parts = parts.len();
            }
            // The thread is D chunks behind: it takes too many parts.
            Some(Err(TrySendError::Full(_))) => {
                self.split = (self.split + TAKE_OVER).min(parts.len().max(FIRST_SPLIT));
            }
            Some(Err(TrySendError::Disconnected(_))) | None => {}
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
        // Closing both channels ends the thread, waiting or sending.
        self.jobs = None;
        self.gathered = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The next job of `from`: polled a while first (the engine asks every
/// few microseconds, and a sleep and wake-up through the kernel cost
/// about as much, on both sides), then slept for. `None` when the engine
/// is gone.
fn next_job(from: &Receiver<Job>) -> Option<Job> {
    for _ in 0..SPINS {
        match from.try_recv() {
            Ok(job) => return Some(job),
            Err(TryRecvError::Disconnected) => return None,
            Err(TryRecvError::Empty) => std::hint::spin_loop(),
        }
    }
    from.recv().ok()
}

/// The thread: a copy of the last values and the parts, and the sets of
/// each chunk asked for.
fn serve(jobs: Receiver<Job>, gathered: SyncSender<Gathered>, takes: Vec<u64>, ring: usize) {
    yield_to_others();
    let mut copy = Copy::new(ring);
    let mut parts: Vec<Part> = Vec::new();
    while let Some(job) = next_job(&jobs) {
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

/// Lowers the calling thread's priority (nice 10): on an idle core the
/// thread runs as fast, and on a busy machine it takes little from the
/// engine's thread or anyone else's (its work is only a help: the engine
/// does what is late itself). Linux sets a nice value per thread.
fn yield_to_others() {
    #[cfg(target_os = "linux")]
    // SAFETY: `gettid` has no preconditions; `setpriority` on this thread's
    // id only lowers its own priority, which any thread may do. A failure
    // leaves the priority as it was.
    unsafe {
        let thread = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, thread as libc::id_t, 10);
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
        generation: job.generation,
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
