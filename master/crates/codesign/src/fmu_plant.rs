//! A plant served by a Model Exchange FMU: r(x, u, d) is its state derivatives with the
//! continuous states, the inputs and the design parameters set; J, G and the vector–Jacobian
//! products come from its directional (and, where provided, adjoint) derivatives with respect
//! to (states, inputs, design parameters). FMI has no second derivatives: the seed
//! contraction is exact where the FMU provides the adjoint extension's Jacobian adjoint
//! derivative (every FMI 3.0 FMU Tandem exports) and a central difference of J and G
//! otherwise.

use nalgebra::DMatrix;

use super::error::CodesignError;
use super::plant::{Adjoints, Dims, Plant};
use fmi_host::instance::{EventUpdate, FmuInstance, LogSettings};
use fmi_host::model_description::{Causality, InterfaceType, ModelDescription};
use fmi_host::Fmu;
use tandem_ode::model_exchange::partials::{Equation, Partials};

/// Relative step of the central differences of J and G in the seed contraction.
const SEED_STEP: f64 = 1e-5;

/// Event-iteration passes allowed when the design changes.
const MAX_EVENT_PASSES: usize = 100;

/// The variables of an FMU that make a plant, by name.
#[derive(Debug, Clone)]
pub struct FmuPlantSpec {
    /// The FMU's continuous states that are x, in the FMU's order (checked).
    pub states: Vec<String>,
    /// The input variables that are u.
    pub inputs: Vec<String>,
    /// The parameters that are d.
    pub design: Vec<String>,
    /// Other parameters set before initialization.
    pub fixed: Vec<(String, f64)>,
}

/// A [`Plant`] evaluating a Model Exchange FMU.
pub struct FmuPlant {
    instance: Box<dyn FmuInstance>,
    dims: Dims,
    inputs: Vec<u32>,
    design: Vec<u32>,
    fixed: Vec<(u32, f64)>,
    partials: Partials,
    /// The state derivatives and the knowns (states, inputs, design parameters), for the
    /// Jacobian adjoint derivative.
    derivatives: Vec<u32>,
    knowns: Vec<u32>,
    /// Whether the FMU computes the seed contraction exactly (its Jacobian adjoint
    /// derivative); otherwise it is a central difference of J and G.
    exact_seeds: bool,
    /// The latest vector–Jacobian product over the knowns, kept for its capacity.
    vjp: Vec<f64>,
    /// The design the instance is initialized with.
    current: Option<Vec<f64>>,
}

impl FmuPlant {
    /// Instantiates the Model Exchange interface of `fmu` for the variables of `spec`.
    pub fn new(fmu: &Fmu, spec: &FmuPlantSpec) -> Result<Self, CodesignError> {
        let md = fmu.model_description();
        let plant_error =
            |message: String| CodesignError::Plant(format!("{}: {message}", fmu.path().display()));
        let me = md
            .model_exchange
            .as_ref()
            .ok_or_else(|| plant_error("the FMU has no Model Exchange interface".into()))?;
        if !me.capabilities.provides_directional_derivatives {
            return Err(plant_error(
                "the FMU provides no directional derivatives (J, G and their products need them)"
                    .into(),
            ));
        }
        let state_indices: Vec<usize> = md
            .states()
            .into_iter()
            .map(|s| {
                s.ok_or_else(|| {
                    plant_error("a continuous state does not resolve to a variable".into())
                })
            })
            .collect::<Result<_, _>>()?;
        let state_names: Vec<&str> = state_indices
            .iter()
            .map(|&i| md.variables[i].name.as_str())
            .collect();
        if state_names != spec.states.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(plant_error(format!(
                "states: the problem lists [{}] but the FMU's continuous states are [{}], in this order",
                spec.states.join(", "),
                state_names.join(", ")
            )));
        }
        let states: Vec<u32> = state_indices
            .iter()
            .map(|&i| md.variables[i].value_reference)
            .collect();
        let derivatives: Vec<u32> = md
            .model_structure
            .derivatives
            .iter()
            .map(|u| {
                md.resolve(u.reference)
                    .map(|i| md.variables[i].value_reference)
            })
            .collect::<Option<_>>()
            .ok_or_else(|| {
                plant_error("a state derivative does not resolve to a variable".into())
            })?;
        let inputs =
            references(md, &spec.inputs, Causality::Input, "input").map_err(plant_error)?;
        let design = references(md, &spec.design, Causality::Parameter, "design parameter")
            .map_err(plant_error)?;
        let fixed_names: Vec<String> = spec.fixed.iter().map(|(n, _)| n.clone()).collect();
        let fixed = references(md, &fixed_names, Causality::Parameter, "parameter")
            .map_err(plant_error)?
            .into_iter()
            .zip(spec.fixed.iter().map(|(_, v)| *v))
            .collect();
        let knowns: Vec<u32> = states
            .iter()
            .chain(&inputs)
            .chain(&design)
            .copied()
            .collect();
        let partials = Partials::new(
            derivatives.clone(),
            Vec::new(),
            // The plant's variables are scalars: one value each.
            knowns.iter().map(|&reference| (reference, 1)).collect(),
            me.capabilities.provides_adjoint_derivatives,
        );
        let instance = fmu.instantiate(
            InterfaceType::ModelExchange,
            "plant",
            LogSettings::default(),
        )?;
        let dims = Dims {
            x: states.len(),
            u: inputs.len(),
            d: design.len(),
        };
        let exact_seeds = instance.provides_jacobian_adjoint_derivative();
        Ok(FmuPlant {
            instance,
            dims,
            inputs,
            design,
            fixed,
            partials,
            derivatives,
            knowns,
            exact_seeds,
            vjp: Vec::new(),
            current: None,
        })
    }

    /// Whether the seed contraction is exact (the FMU's Jacobian adjoint derivative).
    pub fn exact_seeds(&self) -> bool {
        self.exact_seeds
    }

    /// Computes the seed contraction by central differences of J and G even where the FMU
    /// has the Jacobian adjoint derivative (to compare the two).
    pub fn difference_seeds(&mut self) {
        self.exact_seeds = false;
    }

    /// Initializes the instance with design `d` unless it already is, and puts it at (x, u).
    fn put(&mut self, x: &[f64], u: &[f64], d: &[f64]) -> Result<(), CodesignError> {
        if self.current.as_deref() != Some(d) {
            self.initialize(d)?;
            self.current = Some(d.to_vec());
        }
        self.instance.set_time(0.0)?;
        self.instance.set_real(&self.inputs, u)?;
        Ok(self.instance.set_continuous_states(x)?)
    }

    /// Resets the instance and initializes it with the fixed parameters and design `d`.
    fn initialize(&mut self, d: &[f64]) -> tandem_ode::Result<()> {
        self.current = None;
        let instance = &mut self.instance;
        instance.reset()?;
        for &(reference, value) in &self.fixed {
            instance.set_real(&[reference], &[value])?;
        }
        instance.set_real(&self.design, d)?;
        instance.enter_initialization_mode(None, 0.0, None)?;
        instance.exit_initialization_mode()?;
        let mut update = EventUpdate {
            discrete_states_need_update: true,
            ..Default::default()
        };
        let mut passes = 0;
        while update.discrete_states_need_update && passes < MAX_EVENT_PASSES {
            update = instance.update_discrete_states()?;
            passes += 1;
        }
        Ok(instance.enter_continuous_time_mode()?)
    }

    /// ∂r/∂(x, u) at (x, u, d), n_x × (n_x + n_u), from one directional derivative per column.
    fn state_input_jacobian(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
    ) -> Result<DMatrix<f64>, CodesignError> {
        self.put(x, u, d)?;
        let (n, columns) = (self.dims.x, self.dims.x + self.dims.u);
        let mut seed = vec![0.0; self.partials.known_count()];
        let mut column = vec![0.0; n];
        let mut jac = DMatrix::zeros(n, columns);
        for j in 0..columns {
            seed[j] = 1.0;
            self.partials.jvp(
                self.instance.as_mut(),
                Equation::Derivatives,
                &seed,
                &mut column,
            )?;
            seed[j] = 0.0;
            jac.column_mut(j).copy_from_slice(&column);
        }
        Ok(jac)
    }

    /// The seed contraction from the FMU's Jacobian adjoint derivative: one call, the seed on
    /// ∂r/∂(x, u, d) being [Jbar | Gbar | 0].
    fn exact_seed_gradient(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        jbar: &DMatrix<f64>,
        gbar: &DMatrix<f64>,
    ) -> Result<Adjoints, CodesignError> {
        self.put(x, u, d)?;
        let n = self.knowns.len();
        // The FMU takes the seed row-major: the transpose's column-major storage.
        let seed = seed_on(jbar, gbar, n).transpose();
        let mut gradient = vec![0.0; n];
        self.instance.get_jacobian_adjoint_derivative(
            &self.derivatives,
            &self.knowns,
            seed.as_slice(),
            &mut gradient,
        )?;
        Ok(Adjoints::split(self.dims, &gradient))
    }

    /// The seed contraction by central differences of J and G in every entry of (x, u, d), for
    /// an FMU without the Jacobian adjoint derivative.
    fn differenced_seed_gradient(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        jbar: &DMatrix<f64>,
        gbar: &DMatrix<f64>,
    ) -> Result<Adjoints, CodesignError> {
        let seed = seed_on(jbar, gbar, self.dims.x + self.dims.u);
        let mut w: Vec<f64> = x.iter().chain(u).chain(d).copied().collect();
        let mut gradient = vec![0.0; w.len()];
        let (nx, nu) = (self.dims.x, self.dims.u);
        for k in 0..w.len() {
            let h = SEED_STEP * w[k].abs().max(1.0);
            let original = w[k];
            let contraction = |w: &[f64], plant: &mut Self| -> Result<f64, CodesignError> {
                let jac = plant.state_input_jacobian(&w[..nx], &w[nx..nx + nu], &w[nx + nu..])?;
                Ok(jac.component_mul(&seed).sum())
            };
            w[k] = original + h;
            let plus = contraction(&w, self)?;
            w[k] = original - h;
            let minus = contraction(&w, self)?;
            w[k] = original;
            gradient[k] = (plus - minus) / (2.0 * h);
        }
        Ok(Adjoints::split(self.dims, &gradient))
    }
}

/// The seed `[Jbar | Gbar | 0]` on a Jacobian of `columns` columns whose first columns are
/// those of the states, then those of the inputs.
fn seed_on(jbar: &DMatrix<f64>, gbar: &DMatrix<f64>, columns: usize) -> DMatrix<f64> {
    let (nx, nu) = (jbar.ncols(), gbar.ncols());
    let mut seed = DMatrix::zeros(jbar.nrows(), columns);
    seed.columns_mut(0, nx).copy_from(jbar);
    seed.columns_mut(nx, nu).copy_from(gbar);
    seed
}

/// Value references of `names`, each a Float64 variable of `causality`.
fn references(
    md: &ModelDescription,
    names: &[String],
    causality: Causality,
    what: &str,
) -> Result<Vec<u32>, String> {
    names
        .iter()
        .map(|name| match md.variable(name) {
            Some(v) if v.causality == causality => Ok(v.value_reference),
            Some(v) => Err(format!(
                "{what} {name} has causality {}, not {causality}",
                v.causality
            )),
            None => Err(format!("{what} {name}: no such variable in the FMU")),
        })
        .collect()
}

impl Plant for FmuPlant {
    fn dims(&self) -> Dims {
        self.dims
    }

    fn rhs(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        out: &mut [f64],
    ) -> Result<(), CodesignError> {
        self.put(x, u, d)?;
        Ok(self.instance.get_derivatives(out)?)
    }

    fn jacobians(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
    ) -> Result<(DMatrix<f64>, DMatrix<f64>), CodesignError> {
        let jac = self.state_input_jacobian(x, u, d)?;
        Ok((
            jac.columns(0, self.dims.x).into_owned(),
            jac.columns(self.dims.x, self.dims.u).into_owned(),
        ))
    }

    fn adjoints(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        psi: &[f64],
    ) -> Result<Adjoints, CodesignError> {
        self.put(x, u, d)?;
        let mut out = vec![0.0; self.partials.known_count()];
        self.partials
            .vjp(self.instance.as_mut(), Equation::Derivatives, psi, &mut out)?;
        Ok(Adjoints::split(self.dims, &out))
    }

    fn adjoints_into(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        psi: &[f64],
        out: &mut Adjoints,
    ) -> Result<(), CodesignError> {
        self.put(x, u, d)?;
        self.vjp.resize(self.partials.known_count(), 0.0);
        self.partials.vjp(
            self.instance.as_mut(),
            Equation::Derivatives,
            psi,
            &mut self.vjp,
        )?;
        out.copy_from_stacked(&self.vjp);
        Ok(())
    }

    fn seed_gradient(
        &mut self,
        x: &[f64],
        u: &[f64],
        d: &[f64],
        jbar: &DMatrix<f64>,
        gbar: &DMatrix<f64>,
    ) -> Result<Adjoints, CodesignError> {
        if self.exact_seeds {
            self.exact_seed_gradient(x, u, d, jbar, gbar)
        } else {
            self.differenced_seed_gradient(x, u, d, jbar, gbar)
        }
    }

    fn seed_method(&self) -> &'static str {
        if self.exact_seeds {
            "exact (the FMU's Jacobian adjoint derivative, adjoint extension)"
        } else {
            "central differences of J and G (FMI has no second derivatives)"
        }
    }
}
