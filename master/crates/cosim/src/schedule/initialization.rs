//! Initialization: every participant is instantiated with its parameter and start values and
//! enters initialization mode; the values at the start time are then propagated along the
//! components' dependency order ([`super::propagation`]: once through each component outside
//! a loop, in passes through each cyclic group until it settles), and under Gauss-Seidel or
//! implicit coupling the algebraic loops are solved to tolerance; finally all leave
//! initialization mode (in a system without loops, each already left it once its inputs were
//! final) and their values at the start time become the first communicated values.

use super::algebraic_loops::LoopSolver;
use super::participant::Instance;
use super::propagation::Propagation;
use super::{Histories, Hooks, Participant, Source};
use crate::coupling::ScheduleKind;
use crate::error::{Error, Result};
use crate::system::{dependency_order, Port, System};
use fmi_host::instance::{CountingInstance, LogSettings};
use fmi_host::model_description::InterfaceType;

/// What initialization leaves: the participants, the histories holding their values at the
/// start time, per component the ports it observes (in the order of its history slots), and
/// under Gauss-Seidel the solver of the system's algebraic loops, if it has any.
pub(super) struct Initialized {
    pub(super) participants: Vec<Participant>,
    pub(super) histories: Histories,
    pub(super) observed: Vec<Vec<Port>>,
    pub(super) loops: Option<LoopSolver>,
}

/// Initializes every participant of `system`.
pub(super) fn run(system: &System, log: &LogSettings, hooks: Hooks<'_>) -> Result<Initialized> {
    let observed = observed_ports(system);
    let slot_of = |port: Port| Source {
        participant: port.component,
        slot: observed[port.component]
            .iter()
            .position(|p| *p == port)
            .expect("every connection source is observed"),
    };
    let count = system.components.len();
    if !hooks.recorders.is_empty() && hooks.recorders.len() != count {
        return Err(Error::InvalidValue {
            item: "co-simulation recorders".into(),
            message: format!("{} recorders for {count} components", hooks.recorders.len()),
        });
    }
    // A recorded run (a gradient's) keeps every component in initialization mode until all
    // have their values: the adjoint of initialization reverses the readings made in it.
    let recorded = !hooks.recorders.is_empty();
    let mut recorders = hooks.recorders.into_iter();
    let mut participants = Vec::with_capacity(count);
    for (i, component) in system.components.iter().enumerate() {
        let instance = match (component.interface, hooks.instantiate) {
            // The scheduler needs FMI 3.0's own calls, which no stand-in offers.
            (InterfaceType::ScheduledExecution, _) => {
                Instance::Scheduled(component.fmu.instantiate_fmi3(
                    component.interface,
                    &component.name,
                    log.clone(),
                )?)
            }
            (_, Some(instantiate)) => Instance::Stepped(instantiate(component, log)?),
            // Through the counting layer, which notes each call for the crash report.
            (_, None) => Instance::Stepped(Box::new(CountingInstance::new(
                component
                    .fmu
                    .instantiate(component.interface, &component.name, log.clone())?,
            ))),
        };
        participants.push(Participant::instantiate(
            system,
            i,
            instance,
            &observed[i],
            &slot_of,
            recorders.next(),
        )?);
    }
    let mut histories = Histories::new(participants.iter().map(Participant::observed_count));
    let (start, order) = (system.start, &system.schedule.order);
    for participant in &mut participants {
        participant.enter_initialization_mode(start, system.stop)?;
    }
    // An implicit coupling starts from satisfied loops under either schedule.
    let solved =
        system.schedule.kind == ScheduleKind::GaussSeidel || system.schedule.implicit.is_some();
    let groups = dependency_order::groups(&system.components, &system.connections, order);
    let loops_free = groups.iter().all(|group| !group.cyclic);
    let mut propagation = Propagation::new(system, loops_free && !recorded);
    for group in &groups {
        propagation.settle(group, &mut participants, &mut histories, start, solved)?;
    }
    let mut loops = solved.then(|| LoopSolver::new(system, &observed)).flatten();
    match &mut loops {
        // Every pass of the solver sets every participant's inputs.
        Some(loops) => loops.solve(&mut participants, &mut histories, order, start, 0)?,
        None => propagation.refresh_inputs(&mut participants, &histories, order, start)?,
    }
    let staying = |i: &usize| !propagation.exited(*i);
    for i in (0..count).filter(staying) {
        participants[i].exit_initialization_mode(&histories, start)?;
    }
    for i in order.iter().copied().filter(staying) {
        let values = participants[i].observe(start)?;
        histories.reset(i, start, values);
    }
    Ok(Initialized {
        participants,
        histories,
        observed,
        loops,
    })
}

/// Per component, the variables the master reads: the outputs it feeds to connections, then
/// the recorded ones, each once. An element of an FMI 3.0 array brings every element of it, in
/// row-major order: FMI reads an array whole.
pub fn observed_ports(system: &System) -> Vec<Vec<Port>> {
    let mut observed = vec![Vec::new(); system.components.len()];
    let sources = system.connections.iter().map(|c| c.from);
    for port in sources.chain(system.recorded.iter().copied()) {
        let list: &mut Vec<Port> = &mut observed[port.component];
        if list.contains(&port) {
            continue;
        }
        if port.element.is_none() {
            list.push(port);
            continue;
        }
        let component = &system.components[port.component];
        // A connected or recorded element was checked against this shape when loading.
        let count = component
            .shapes()
            .count(port.variable(&system.components))
            .unwrap_or(0);
        list.extend((0..count).map(|element| Port {
            element: Some(element),
            ..port
        }));
    }
    observed
}
