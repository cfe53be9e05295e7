//! The Jacobi macro step: every participant advances at once from the values communicated up
//! to the start of the step. The first participant runs on the calling thread; each other one
//! lives on a worker thread of its own for the whole run, which advances it when told and
//! reports back, so that no thread is started per macro step. A run whose participants must
//! stay on the calling thread (recorded runs) takes the same step with them advancing in turn.

use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use super::{settle, Advance, Histories, Participant, Progress};
use crate::error::{Error, Result};
use crate::model_description::VariableType;

/// The participants of a Jacobi run: the first on the calling thread, the others on workers.
pub(super) struct Crew {
    first: Participant,
    workers: Vec<Worker>,
}

/// What a worker is told to do with its participant.
enum Order {
    /// Advance from `from` to `to` with the holds of `degree` of `histories`.
    Advance {
        histories: Arc<Histories>,
        from: f64,
        to: f64,
        degree: usize,
    },
    /// Add `offset` to every value sent to the input variable `variable` from now on.
    Offset { variable: usize, offset: f64 },
    /// Read `variables` at `time` with the inputs set to their values communicated then.
    ReadConsistent {
        histories: Arc<Histories>,
        time: f64,
        variables: Vec<(VariableType, u32)>,
    },
    /// End the run.
    Terminate,
}

/// What a worker reports back: the result of the order and the participant's FMI calls so far.
enum Report {
    Advanced(Result<Advance>, usize),
    Offset(bool),
    Read(Result<Vec<f64>>, usize),
    Terminated(Result<()>, usize),
}

/// A thread that owns one participant for the whole run.
struct Worker {
    /// `None` once the worker is told to stop (on drop).
    orders: Option<Sender<Order>>,
    reports: Receiver<Report>,
    thread: Option<JoinHandle<()>>,
    /// The participant's FMI calls at its latest report.
    calls: usize,
}

impl Crew {
    /// Keeps the first participant and hands each other one to a new worker thread; `time`
    /// is the start time, for messages.
    pub fn new(participants: Vec<Participant>, time: f64) -> Result<Crew> {
        let mut participants = participants.into_iter();
        let first = participants
            .next()
            .expect("a system has at least one component");
        let workers = participants
            .map(|p| Worker::spawn(p, time))
            .collect::<Result<_>>()?;
        Ok(Crew { first, workers })
    }

    /// Advances every participant from `from` to `to` in parallel and adds their values at
    /// `to` to the histories; `names` are the participants' names, for a termination request.
    pub fn step(
        &mut self,
        histories: &mut Arc<Histories>,
        names: &[String],
        from: f64,
        to: f64,
        degree: usize,
    ) -> Result<Progress> {
        for worker in &self.workers {
            worker.order(Order::Advance {
                histories: Arc::clone(histories),
                from,
                to,
                degree,
            });
        }
        let mut advances = vec![self.first.advance(histories, from, to, degree)];
        for worker in &mut self.workers {
            advances.push(match worker.report() {
                Report::Advanced(advance, calls) => {
                    worker.calls = calls;
                    advance
                }
                _ => unreachable!("a worker reports on the order it was given"),
            });
        }
        // The workers dropped their references before reporting: no copy is made here.
        settle_all(Arc::make_mut(histories), names, to, advances)
    }

    /// Adds `offset` to every value participant `index` sends to its input variable
    /// `variable` from now on; false when that is no connected continuous float input.
    pub fn set_input_offset(&mut self, index: usize, variable: usize, offset: f64) -> bool {
        if index == 0 {
            return self.first.set_input_offset(variable, offset);
        }
        let worker = &mut self.workers[index - 1];
        worker.order(Order::Offset { variable, offset });
        match worker.report() {
            Report::Offset(found) => found,
            _ => unreachable!("a worker reports on the order it was given"),
        }
    }

    /// Reads, for every participant, the variables `requests[index]` at `time` as
    /// [`Participant::read_consistent`] does, all participants in parallel.
    pub fn read_consistent(
        &mut self,
        histories: &Arc<Histories>,
        time: f64,
        requests: &[Vec<(VariableType, u32)>],
    ) -> Result<Vec<Vec<f64>>> {
        for (worker, variables) in self.workers.iter().zip(&requests[1..]) {
            if !variables.is_empty() {
                worker.order(Order::ReadConsistent {
                    histories: Arc::clone(histories),
                    time,
                    variables: variables.clone(),
                });
            }
        }
        let mut values = vec![if requests[0].is_empty() {
            Ok(Vec::new())
        } else {
            self.first.read_consistent(histories, time, &requests[0])
        }];
        for (worker, variables) in self.workers.iter_mut().zip(&requests[1..]) {
            values.push(if variables.is_empty() {
                Ok(Vec::new())
            } else {
                match worker.report() {
                    Report::Read(read, calls) => {
                        worker.calls = calls;
                        read
                    }
                    _ => unreachable!("a worker reports on the order it was given"),
                }
            });
        }
        values.into_iter().collect()
    }

    /// FMI calls made so far, over all participants.
    pub fn calls(&self) -> usize {
        self.first.calls() + self.workers.iter().map(|w| w.calls).sum::<usize>()
    }

    /// Terminates every participant; reports the first failure in component order.
    pub fn terminate(&mut self) -> Result<()> {
        for worker in &self.workers {
            worker.order(Order::Terminate);
        }
        let mut results = vec![self.first.terminate()];
        for worker in &mut self.workers {
            results.push(match worker.report() {
                Report::Terminated(result, calls) => {
                    worker.calls = calls;
                    result
                }
                _ => unreachable!("a worker reports on the order it was given"),
            });
        }
        results.into_iter().collect()
    }
}

/// The Jacobi step on the calling thread: advances every participant in turn from `from` to
/// `to`, all from the histories as they were at `from`, then adds their values at `to`; the
/// result is that of [`Crew::step`].
pub(super) fn step_in_turn(
    participants: &mut [Participant],
    histories: &mut Histories,
    names: &[String],
    from: f64,
    to: f64,
    degree: usize,
) -> Result<Progress> {
    let advances = participants
        .iter_mut()
        .map(|p| p.advance(histories, from, to, degree))
        .collect();
    settle_all(histories, names, to, advances)
}

/// Once every participant has finished its step (`advances`, in component order), reports the
/// first failure, else adds all values at `to` to the histories; the first termination request
/// in component order ends the run.
fn settle_all(
    histories: &mut Histories,
    names: &[String],
    to: f64,
    advances: Vec<Result<Advance>>,
) -> Result<Progress> {
    let advances = advances.into_iter().collect::<Result<Vec<_>>>()?;
    let mut progress = Progress::Reached;
    for (index, advance) in advances.into_iter().enumerate() {
        let settled = settle(histories, &names[index], index, to, advance);
        if progress == Progress::Reached {
            progress = settled;
        }
    }
    Ok(progress)
}

impl Worker {
    /// Starts a thread that owns `participant` and carries out orders until the crew is dropped.
    fn spawn(mut participant: Participant, time: f64) -> Result<Worker> {
        let (orders, inbox) = channel::<Order>();
        let (outbox, reports) = channel::<Report>();
        let name = participant.name().to_string();
        let thread = std::thread::Builder::new()
            .name(format!("tandem {name}"))
            .spawn(move || {
                for order in inbox {
                    let report = match order {
                        Order::Advance {
                            histories,
                            from,
                            to,
                            degree,
                        } => {
                            let advance = participant.advance(&histories, from, to, degree);
                            // Let the caller own the histories alone again before it hears back.
                            drop(histories);
                            Report::Advanced(advance, participant.calls())
                        }
                        Order::Offset { variable, offset } => {
                            Report::Offset(participant.set_input_offset(variable, offset))
                        }
                        Order::ReadConsistent {
                            histories,
                            time,
                            variables,
                        } => {
                            let read = participant.read_consistent(&histories, time, &variables);
                            drop(histories);
                            Report::Read(read, participant.calls())
                        }
                        Order::Terminate => {
                            Report::Terminated(participant.terminate(), participant.calls())
                        }
                    };
                    if outbox.send(report).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| Error::Simulation {
                time,
                message: format!("cannot start a thread for instance {name}: {e}"),
            })?;
        Ok(Worker {
            orders: Some(orders),
            reports,
            thread: Some(thread),
            calls: 0,
        })
    }

    /// Sends `order`; a worker that is gone is noticed when its report is awaited.
    fn order(&self, order: Order) {
        if let Some(orders) = &self.orders {
            // A failed send means the thread ended (it panicked): `report` says so.
            let _ = orders.send(order);
        }
    }

    /// Waits for the report on the latest order; if the thread panicked, so does the caller.
    fn report(&mut self) -> Report {
        match self.reports.recv() {
            Ok(report) => report,
            Err(_) => match self.thread.take().map(JoinHandle::join) {
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                _ => panic!("a worker thread ended without reporting"),
            },
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing the order channel ends the thread's loop; its participant is dropped there.
        self.orders = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
