//! In-process stand-ins for FMUs with the adjoint extension, for testing the co-simulation
//! adjoint: a component whose co-simulation step is one explicit Euler step of
//! `w' = A(p) w + B u + kappa w^3` (cubed element-wise), with outputs `y = C w + D(p) u` and
//! initial state `w_0 = W + E u_0 + F p`, where `A(p) = A_0 + sum_l p_l A_l` and
//! `D(p) = D_0 + sum_l p_l D_l`. Its VJPs are written out by hand below; the tests check the
//! co-simulation adjoint built from them against finite differences and closed forms.
//!
//! Each component gets a modelDescription.xml (inputs `u0..`, outputs `y0..`, parameters
//! `p0..`) in an .fmu archive without binaries, so a system file can name it; the instances are
//! made in process through [`tandem::gradient::Problem::with_instances`].

#![allow(dead_code)]

use std::collections::HashMap;
use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use fmi_host::{Error, Result};
use nalgebra::{DMatrix, DVector};
use tandem::gradient::{DerivativeLayout, Instantiator, Seed, StepDerivatives};
use tandem::instance::prelude::*;
use tandem::instance::{EventUpdate, FmuState, IntegratorStepOutcome, LogSettings, StepOutcome};
use tandem::model_description::{FmiVersion, InterfaceType, Values, VariableType};
use tandem::system::Component;

/// Value reference of input `i` is `i`, of output `j` is `OUTPUT + j`, of parameter `l` is
/// `PARAMETER + l`.
pub const OUTPUT: u32 = 100;
/// See [`OUTPUT`].
pub const PARAMETER: u32 = 200;

/// The maps of one fake component.
#[derive(Clone, Debug)]
pub struct LinearModel {
    /// `A_0` (n x n).
    pub a: DMatrix<f64>,
    /// `A_l`, one per parameter.
    pub a_parameters: Vec<DMatrix<f64>>,
    /// `B` (n x m).
    pub b: DMatrix<f64>,
    /// The cubic coefficient.
    pub kappa: f64,
    /// `C` (r x n).
    pub c: DMatrix<f64>,
    /// `D_0` (r x m).
    pub d: DMatrix<f64>,
    /// `D_l`, one per parameter.
    pub d_parameters: Vec<DMatrix<f64>>,
    /// `W` (n).
    pub w_start: DVector<f64>,
    /// `E` (n x m).
    pub e: DMatrix<f64>,
    /// `F` (n x q).
    pub f: DMatrix<f64>,
    /// Parameter start values (q).
    pub parameters: Vec<f64>,
}

impl LinearModel {
    /// Number of states, inputs, outputs and parameters.
    pub fn sizes(&self) -> (usize, usize, usize, usize) {
        (
            self.a.nrows(),
            self.b.ncols(),
            self.c.nrows(),
            self.parameters.len(),
        )
    }

    fn a_of(&self, p: &[f64]) -> DMatrix<f64> {
        let mut a = self.a.clone();
        for (al, &pl) in self.a_parameters.iter().zip(p) {
            a += al * pl;
        }
        a
    }

    fn d_of(&self, p: &[f64]) -> DMatrix<f64> {
        let mut d = self.d.clone();
        for (dl, &pl) in self.d_parameters.iter().zip(p) {
            d += dl * pl;
        }
        d
    }

    /// `W + E u + F p`.
    fn initial_state(&self, u: &DVector<f64>, p: &[f64]) -> DVector<f64> {
        &self.w_start + &self.e * u + &self.f * DVector::from_column_slice(p)
    }

    /// Whether output `j` depends directly on input `i` (for any parameter values).
    fn feeds_through(&self, j: usize, i: usize) -> bool {
        self.d[(j, i)] != 0.0 || self.d_parameters.iter().any(|dl| dl[(j, i)] != 0.0)
    }

    /// An FMI 3.0 model description declaring the model's variables.
    pub fn model_description(&self, identifier: &str) -> String {
        let (_, m, r, _) = self.sizes();
        let mut variables = String::from(
            "    <Float64 name=\"time\" valueReference=\"999\" causality=\"independent\" variability=\"continuous\"/>\n",
        );
        for i in 0..m {
            variables += &format!(
                "    <Float64 name=\"u{i}\" valueReference=\"{i}\" causality=\"input\" start=\"0\"/>\n"
            );
        }
        for j in 0..r {
            variables += &format!(
                "    <Float64 name=\"y{j}\" valueReference=\"{}\" causality=\"output\"/>\n",
                OUTPUT + j as u32
            );
        }
        for (l, value) in self.parameters.iter().enumerate() {
            variables += &format!(
                "    <Float64 name=\"p{l}\" valueReference=\"{}\" causality=\"parameter\" variability=\"fixed\" start=\"{value:?}\"/>\n",
                PARAMETER + l as u32
            );
        }
        let structure: String = (0..r)
            .map(|j| {
                let inputs: Vec<String> = (0..m)
                    .filter(|&i| self.feeds_through(j, i))
                    .map(|i| i.to_string())
                    .collect();
                format!(
                    "    <Output valueReference=\"{}\" dependencies=\"{}\"/>\n",
                    OUTPUT + j as u32,
                    inputs.join(" ")
                )
            })
            .collect();
        format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<fmiModelDescription fmiVersion="3.0" modelName="{identifier}" instantiationToken="{{fake}}">
  <CoSimulation modelIdentifier="{identifier}" canGetAndSetFMUState="true"/>
  <ModelVariables>
{variables}  </ModelVariables>
  <ModelStructure>
{structure}  </ModelStructure>
</fmiModelDescription>
"#
        )
    }

    /// Writes `<dir>/<identifier>.fmu` with the model description only.
    pub fn write_fmu(&self, dir: &Path, identifier: &str) -> PathBuf {
        let xml = self.model_description(identifier);
        crate::common::write_zip(
            &dir.join(format!("{identifier}.fmu")),
            &[("modelDescription.xml", xml.as_bytes())],
        )
    }
}

/// Creates fake instances by component name.
pub fn instantiator(models: HashMap<String, LinearModel>) -> Instantiator {
    let models: HashMap<String, Arc<LinearModel>> =
        models.into_iter().map(|(k, v)| (k, Arc::new(v))).collect();
    Box::new(move |component: &Component, _log: &LogSettings| {
        let model = models
            .get(&component.name)
            .unwrap_or_else(|| panic!("no fake model for component {}", component.name));
        Ok(Box::new(FakeInstance::new(&component.name, model.clone())) as Box<dyn FmuInstance>)
    })
}

/// What an FMU state of the fake holds.
#[derive(Clone, Debug)]
struct Snapshot {
    time: f64,
    w: DVector<f64>,
    u: DVector<f64>,
    p: Vec<f64>,
}

/// An instance of a [`LinearModel`].
pub struct FakeInstance {
    name: String,
    model: Arc<LinearModel>,
    layout: DerivativeLayout,
    p: Vec<f64>,
    u: DVector<f64>,
    w: DVector<f64>,
    time: f64,
    initialized: bool,
    snapshots: Vec<Option<Snapshot>>,
}

impl FakeInstance {
    fn new(name: &str, model: Arc<LinearModel>) -> Self {
        let (n, m, r, q) = model.sizes();
        FakeInstance {
            name: name.to_string(),
            layout: DerivativeLayout {
                inputs: (0..m as u32).map(Seed::scalar).collect(),
                parameters: (0..q as u32).map(|l| Seed::scalar(PARAMETER + l)).collect(),
                outputs: (0..r as u32).map(|j| Seed::scalar(OUTPUT + j)).collect(),
                excluded: Vec::new(),
            },
            p: model.parameters.clone(),
            u: DVector::zeros(m),
            w: DVector::zeros(n),
            time: 0.0,
            initialized: false,
            snapshots: Vec::new(),
            model,
        }
    }

    /// The state: live from the inputs during initialization (as an FMU computes it), stepped after.
    fn state(&self) -> DVector<f64> {
        if self.initialized {
            self.w.clone()
        } else {
            self.model.initial_state(&self.u, &self.p)
        }
    }

    fn outputs(&self) -> DVector<f64> {
        &self.model.c * self.state() + self.model.d_of(&self.p) * &self.u
    }

    /// `sum_l p_bar_l = seeds^T (M_l v)` for each parameter matrix `M_l`.
    fn parameter_terms(
        matrices: &[DMatrix<f64>],
        seeds: &DVector<f64>,
        v: &DVector<f64>,
        out: &mut [f64],
    ) {
        for (o, ml) in out.iter_mut().zip(matrices) {
            *o += seeds.dot(&(ml * v));
        }
    }

    fn unsupported(&self, function: &'static str) -> Error {
        Error::Unsupported {
            instance: self.name.clone(),
            function,
        }
    }

    fn owner(&self) -> usize {
        self as *const Self as usize
    }
}

/// Copies a vector into a slice.
fn write(out: &mut [f64], v: &DVector<f64>) {
    out.copy_from_slice(v.as_slice());
}

impl StepDerivatives for FakeInstance {
    fn layout(&self) -> DerivativeLayout {
        self.layout.clone()
    }

    fn state_size(&mut self) -> Result<usize> {
        Ok(self.w.len())
    }

    fn step_jvp(
        &mut self,
        step: f64,
        d_state: &[f64],
        d_inputs: &[f64],
        d_parameters: &[f64],
        d_state_next: &mut [f64],
        d_outputs_next: &mut [f64],
    ) -> Result<()> {
        let model = &self.model;
        let dw = DVector::from_column_slice(d_state);
        let du = DVector::from_column_slice(d_inputs);
        let cubic = self.w.map(|x| 3.0 * model.kappa * x * x).component_mul(&dw);
        let mut rate = model.a_of(&self.p) * &dw + cubic + &model.b * &du;
        let mut outputs = model.d_of(&self.p) * &du;
        for (l, &dp) in d_parameters.iter().enumerate() {
            rate += &model.a_parameters[l] * &self.w * dp;
            outputs += &model.d_parameters[l] * &self.u * dp;
        }
        let state = &dw + rate * step;
        outputs += &model.c * &state;
        write(d_state_next, &state);
        write(d_outputs_next, &outputs);
        Ok(())
    }

    fn step_vjp(
        &mut self,
        step: f64,
        bar_state_next: &[f64],
        bar_outputs_next: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let model = &self.model;
        let ybar = DVector::from_column_slice(bar_outputs_next);
        let wbar = DVector::from_column_slice(bar_state_next) + model.c.transpose() * &ybar;
        let cubic = self
            .w
            .map(|x| 3.0 * model.kappa * x * x)
            .component_mul(&wbar);
        let state = &wbar + (model.a_of(&self.p).transpose() * &wbar + cubic) * step;
        write(bar_state, &state);
        let inputs = model.b.transpose() * &wbar * step + model.d_of(&self.p).transpose() * &ybar;
        write(bar_inputs, &inputs);
        bar_parameters.fill(0.0);
        Self::parameter_terms(
            &model.a_parameters,
            &(&wbar * step),
            &self.w,
            bar_parameters,
        );
        Self::parameter_terms(&model.d_parameters, &ybar, &self.u, bar_parameters);
        Ok(())
    }

    fn output_vjp(
        &mut self,
        bar_outputs: &[f64],
        bar_state: &mut [f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let model = &self.model;
        let ybar = DVector::from_column_slice(bar_outputs);
        write(bar_state, &(model.c.transpose() * &ybar));
        write(bar_inputs, &(model.d_of(&self.p).transpose() * &ybar));
        bar_parameters.fill(0.0);
        Self::parameter_terms(&model.d_parameters, &ybar, &self.u, bar_parameters);
        Ok(())
    }

    fn initialization_vjp(
        &mut self,
        bar_state: &[f64],
        bar_outputs: &[f64],
        bar_inputs: &mut [f64],
        bar_parameters: &mut [f64],
    ) -> Result<()> {
        let model = &self.model;
        let ybar = DVector::from_column_slice(bar_outputs);
        let wbar = DVector::from_column_slice(bar_state) + model.c.transpose() * &ybar;
        let inputs = model.e.transpose() * &wbar + model.d_of(&self.p).transpose() * &ybar;
        write(bar_inputs, &inputs);
        write(bar_parameters, &(model.f.transpose() * &wbar));
        Self::parameter_terms(&model.d_parameters, &ybar, &self.u, bar_parameters);
        Ok(())
    }
}

impl Common for FakeInstance {
    fn name(&self) -> &str {
        &self.name
    }
    fn fmi_version(&self) -> FmiVersion {
        FmiVersion::V3
    }
    fn interface(&self) -> InterfaceType {
        InterfaceType::CoSimulation
    }
    fn enter_initialization_mode(
        &mut self,
        _: Option<f64>,
        start: f64,
        _: Option<f64>,
    ) -> Result<()> {
        self.time = start;
        Ok(())
    }
    fn exit_initialization_mode(&mut self) -> Result<()> {
        self.w = self.model.initial_state(&self.u, &self.p);
        self.initialized = true;
        Ok(())
    }
    fn terminate(&mut self) -> Result<()> {
        Ok(())
    }
    fn reset(&mut self) -> Result<()> {
        Err(self.unsupported("reset"))
    }
    fn get_real(&mut self, references: &[u32], values: &mut [f64]) -> Result<()> {
        let outputs = self.outputs();
        for (value, &r) in values.iter_mut().zip(references) {
            *value = match r {
                r if r >= PARAMETER => self.p[(r - PARAMETER) as usize],
                r if r >= OUTPUT => outputs[(r - OUTPUT) as usize],
                r => self.u[r as usize],
            };
        }
        Ok(())
    }
    fn set_real(&mut self, references: &[u32], values: &[f64]) -> Result<()> {
        for (&value, &r) in values.iter().zip(references) {
            match r {
                r if r >= PARAMETER => self.p[(r - PARAMETER) as usize] = value,
                r if r >= OUTPUT => return Err(self.unsupported("setting an output")),
                r => self.u[r as usize] = value,
            }
        }
        Ok(())
    }
    fn get_integer(&mut self, _: &[u32], _: &mut [i32]) -> Result<()> {
        Err(self.unsupported("get_integer"))
    }
    fn set_integer(&mut self, _: &[u32], _: &[i32]) -> Result<()> {
        Err(self.unsupported("set_integer"))
    }
    fn get_boolean(&mut self, _: &[u32], _: &mut [bool]) -> Result<()> {
        Err(self.unsupported("get_boolean"))
    }
    fn set_boolean(&mut self, _: &[u32], _: &[bool]) -> Result<()> {
        Err(self.unsupported("set_boolean"))
    }
    fn get_string(&mut self, _: &[u32]) -> Result<Vec<String>> {
        Err(self.unsupported("get_string"))
    }
    fn set_string(&mut self, _: &[u32], _: &[String]) -> Result<()> {
        Err(self.unsupported("set_string"))
    }
    fn get_values(&mut self, ty: VariableType, references: &[u32]) -> Result<Values> {
        assert_eq!(
            ty,
            VariableType::Float64,
            "the fake has Float64 variables only"
        );
        let mut values = vec![0.0; references.len()];
        self.get_real(references, &mut values)?;
        Ok(Values::Float(values))
    }
    fn set_values(&mut self, ty: VariableType, references: &[u32], values: &Values) -> Result<()> {
        assert_eq!(
            ty,
            VariableType::Float64,
            "the fake has Float64 variables only"
        );
        match values {
            Values::Float(values) => self.set_real(references, values),
            other => panic!("the fake takes floats, not {other:?}"),
        }
    }
    fn enter_event_mode(&mut self) -> Result<()> {
        Err(self.unsupported("enter_event_mode"))
    }
    fn update_discrete_states(&mut self) -> Result<EventUpdate> {
        Err(self.unsupported("update_discrete_states"))
    }
}

impl CoSimulationInstance for FakeInstance {
    fn do_step(&mut self, time: f64, step: f64) -> Result<StepOutcome> {
        assert!(
            (time - self.time).abs() <= 1e-12 * time.abs().max(1.0),
            "{} steps from {time} at {}",
            self.name,
            self.time
        );
        let model = &self.model;
        let cubic = self.w.map(|x| model.kappa * x * x * x);
        let rate = model.a_of(&self.p) * &self.w + &model.b * &self.u + cubic;
        self.w += rate * step;
        self.time = time + step;
        Ok(StepOutcome {
            terminate: false,
            partial: false,
            last_time: self.time,
            event_handling_needed: false,
        })
    }
}

impl ModelExchangeInstance for FakeInstance {
    fn enter_continuous_time_mode(&mut self) -> Result<()> {
        Err(self.unsupported("enter_continuous_time_mode"))
    }
    fn completed_integrator_step(&mut self, _: bool) -> Result<IntegratorStepOutcome> {
        Err(self.unsupported("completed_integrator_step"))
    }
    fn set_time(&mut self, _: f64) -> Result<()> {
        Err(self.unsupported("set_time"))
    }
    fn set_continuous_states(&mut self, _: &[f64]) -> Result<()> {
        Err(self.unsupported("set_continuous_states"))
    }
    fn get_continuous_states(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("get_continuous_states"))
    }
    fn get_derivatives(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("get_derivatives"))
    }
    fn get_event_indicators(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("get_event_indicators"))
    }
    fn get_nominals_of_continuous_states(&mut self, _: &mut [f64]) -> Result<()> {
        Err(self.unsupported("get_nominals_of_continuous_states"))
    }
    fn number_of_continuous_states(&self) -> usize {
        0
    }
    fn number_of_event_indicators(&self) -> usize {
        0
    }
}

impl PartialDerivatives for FakeInstance {
    fn get_directional_derivative(
        &mut self,
        _: &[u32],
        _: &[u32],
        _: &[f64],
        _: &mut [f64],
    ) -> Result<()> {
        Err(self.unsupported("get_directional_derivative"))
    }
    fn get_adjoint_derivative(
        &mut self,
        _: &[u32],
        _: &[u32],
        _: &[f64],
        _: &mut [f64],
    ) -> Result<()> {
        Err(self.unsupported("get_adjoint_derivative"))
    }
    fn step_derivatives(&mut self) -> Option<&mut dyn StepDerivatives> {
        Some(self)
    }
}

impl FmuStates for FakeInstance {
    fn get_fmu_state(&mut self) -> Result<FmuState> {
        self.snapshots.push(Some(Snapshot {
            time: self.time,
            w: self.w.clone(),
            u: self.u.clone(),
            p: self.p.clone(),
        }));
        Ok(FmuState::from_raw(
            self.snapshots.len() as *mut c_void,
            self.owner(),
        ))
    }
    fn set_fmu_state(&mut self, state: &FmuState) -> Result<()> {
        let index = state.as_raw() as usize - 1;
        let snapshot = self.snapshots[index]
            .clone()
            .unwrap_or_else(|| panic!("{}: state {index} was freed", self.name));
        self.time = snapshot.time;
        self.w = snapshot.w;
        self.u = snapshot.u;
        self.p = snapshot.p;
        Ok(())
    }
    fn free_fmu_state(&mut self, state: FmuState) -> Result<()> {
        let index = state.as_raw() as usize - 1;
        assert!(
            self.snapshots[index].take().is_some(),
            "{}: state {index} freed twice",
            self.name
        );
        Ok(())
    }
    fn serialize_fmu_state(&mut self, _: &FmuState) -> Result<Vec<u8>> {
        Err(self.unsupported("serialize_fmu_state"))
    }
    fn deserialize_fmu_state(&mut self, _: &[u8]) -> Result<FmuState> {
        Err(self.unsupported("deserialize_fmu_state"))
    }
}

impl FakeInstance {
    /// FMU states not yet freed.
    pub fn live_states(&self) -> usize {
        self.snapshots.iter().flatten().count()
    }
}
