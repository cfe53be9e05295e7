//! How the participants of a system are wired, as the reverse pass needs it: where each
//! input's samples come from, and which entries of a component's derivative seeds its inputs
//! and observed variables are.

use fmi_host::instance::{DerivativeLayout, Seed};
use fmi_host::model_description::Variability;
use tandem_cosim::schedule::{connections_into, observed_ports};
use tandem_cosim::system::{Port, System};

/// One connected input.
#[derive(Debug, Clone)]
pub struct InputWire {
    /// The participant its samples come from.
    pub participant: usize,
    /// The slot of the source among that participant's observed variables.
    pub slot: usize,
    /// The input's entry in its FMU's derivative seeds.
    pub seed: Seed,
    /// The source output.
    pub source: Port,
    /// A continuous float input (others carry no derivative).
    pub differentiable: bool,
}

/// One participant's wiring.
#[derive(Debug, Clone)]
pub struct Wiring {
    /// Its connected inputs, in the order the schedule writes them.
    pub inputs: Vec<InputWire>,
    /// Its observed variables, by slot.
    pub observed: Vec<Port>,
}

/// The wiring of every component of `system` (with its current recorded variables).
pub fn wire(system: &System) -> Vec<Wiring> {
    let observed = observed_ports(system);
    (0..system.components.len())
        .map(|index| Wiring {
            inputs: connections_into(system, index)
                .map(|c| {
                    let input = c.to.variable(&system.components);
                    InputWire {
                        participant: c.from.component,
                        slot: observed[c.from.component]
                            .iter()
                            .position(|p| *p == c.from)
                            .expect("every connection source is observed"),
                        seed: c.to.seed(&system.components),
                        source: c.from,
                        differentiable: input.ty.is_float()
                            && input.variability == Variability::Continuous,
                    }
                })
                .collect(),
            observed: observed[index].clone(),
        })
        .collect()
}

/// Where a participant's inputs and observed variables sit in its derivative seeds, and the
/// seeds' lengths.
#[derive(Debug, Clone)]
pub struct SeedMap {
    /// Per input, its index among the layout's inputs.
    pub inputs: Vec<Option<usize>>,
    /// Per observed slot, its index among the layout's outputs.
    pub outputs: Vec<Option<usize>>,
    /// Length of the discrete state.
    pub state_size: usize,
    /// Number of inputs in the layout.
    pub input_count: usize,
    /// Number of outputs in the layout.
    pub output_count: usize,
    /// Number of parameters in the layout.
    pub parameter_count: usize,
}

impl SeedMap {
    /// The map of `wiring` onto `layout` for a state of `state_size`; `seed` gives an
    /// observed port's seed entry.
    pub fn new(
        wiring: &Wiring,
        layout: &DerivativeLayout,
        state_size: usize,
        seed: &dyn Fn(Port) -> Seed,
    ) -> Self {
        let position = |list: &[Seed], entry: Seed| list.iter().position(|&s| s == entry);
        SeedMap {
            state_size,
            input_count: layout.inputs.len(),
            output_count: layout.outputs.len(),
            parameter_count: layout.parameters.len(),
            inputs: wiring
                .inputs
                .iter()
                .map(|input| position(&layout.inputs, input.seed))
                .collect(),
            outputs: wiring
                .observed
                .iter()
                .map(|&port| position(&layout.outputs, seed(port)))
                .collect(),
        }
    }
}
