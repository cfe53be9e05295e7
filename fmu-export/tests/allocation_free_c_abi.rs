//! Through the C ABI a master calls at every communication step, a running instance
//! allocates nothing: fmiSet of the inputs and a tunable parameter, fmiDoStep and fmiGet of
//! states, outputs and inputs, in FMI 2.0 and FMI 3.0, with more values per get and set than
//! a step's stack buffers hold (the values go straight between the host's arrays and the
//! instance).
//!
//! The model has as many inputs as those buffers hold: the inputs at a time, which every
//! internal step evaluates, are still one of them.

mod counting;

use std::ffi::{c_void, CString};

use counting::allocations;
use fmu_export::fmi2::types::{
    Fmi2CallbackFunctions, Fmi2Status, Fmi2String, FMI2_CO_SIMULATION, FMI2_FALSE, FMI2_TRUE,
};
use fmu_export::fmi3::types::{Fmi3Status, FMI3_FALSE, FMI3_TRUE};
use fmu_export::small::INLINE;
use fmu_export::token::instantiation_token;
use fmu_export::variables::{Role, ValueReference, VariableTable};
use fmu_export::{
    fmi2, fmi3, Declaration, MechArgs, MechanicalModel, MechanicalSystem, Method, Scalar, System,
    Tunability, Var,
};

/// Forces acting on the mass: as many as a stack buffer of [`INLINE`] values holds.
const FORCES: usize = INLINE;

/// Values set at every step: the forces and the stiffness.
const SET: usize = FORCES + 1;

/// The stiffness, set at every step to its start value.
const STIFFNESS: f64 = 400.0;

/// A mass on a spring of tunable stiffness driven by [`FORCES`] forces, integrated by
/// symplectic Euler (the method of the energy benchmark's masses).
#[derive(Default)]
struct DrivenMass;

impl MechanicalModel for DrivenMass {
    fn declaration(&self) -> Declaration {
        let declaration = Declaration::new("driven_mass", "m a = -k x + sum F_i")
            .state(Var::new("x", 0.01))
            .state(Var::new("v", 0.0))
            .parameter(Var::new("m", 2.0), Tunability::Fixed)
            .parameter(Var::new("k", STIFFNESS), Tunability::Tunable)
            .output(Var::new("a", 0.0))
            .cosimulation(Method::SymplecticEuler, 1e-4);
        (0..FORCES).fold(declaration, |d, i| d.input(Var::new(&format!("F{i}"), 0.0)))
    }

    fn mass_matrix<T: Scalar>(&self, a: &MechArgs<T>, m: &mut [T]) {
        m[0] = a.p[0];
    }

    fn forces<T: Scalar>(&self, a: &MechArgs<T>, f: &mut [T]) {
        f[0] = a.u.iter().fold(-a.p[1] * a.q[0], |sum, &force| sum + force);
    }

    fn outputs<T: Scalar>(&self, _a: &MechArgs<T>, acc: &[T], _l: &[T], y: &mut [T]) {
        y[0] = acc[0];
    }
}

type Model = MechanicalSystem<DrivenMass>;

/// Communication step (10 internal steps).
const STEP: f64 = 1e-3;

/// The value references set (the forces, then the stiffness) and read (the state, the output
/// and the forces) at every step.
fn references() -> (Vec<ValueReference>, Vec<ValueReference>) {
    let table = VariableTable::new(Model::default().declaration());
    let vr = |role| table.vr_of(role).unwrap();
    let inputs = (0..FORCES).map(|i| vr(Role::Input(i)));
    let set = inputs.clone().chain([vr(Role::Parameter(1))]).collect();
    let read = [Role::State(0), Role::State(1), Role::Output(0)]
        .into_iter()
        .map(vr)
        .chain(inputs)
        .collect();
    (set, read)
}

/// The forces at time `t`.
fn forces(t: f64) -> [f64; FORCES] {
    std::array::from_fn(|i| (t * (i + 1) as f64).sin())
}

/// The values set at time `t`: the forces, then the stiffness.
fn set_values(t: f64) -> [f64; SET] {
    let f = forces(t);
    std::array::from_fn(|i| if i < FORCES { f[i] } else { STIFFNESS })
}

/// The instance name and the model's instantiation token, as C strings.
fn names() -> (CString, CString) {
    let token = instantiation_token(Model::default().declaration());
    (c"mass".to_owned(), CString::new(token).unwrap())
}

/// Runs `step(t)` at 0 and then at 99 more communication points; returns the allocations of
/// the 99 and checks that the steps moved the mass.
fn count_steps(mut step: impl FnMut(f64) -> [f64; 3 + FORCES]) -> usize {
    let first = step(0.0);
    let mut last = first;
    let count = allocations(|| (1..100).for_each(|k| last = step(k as f64 * STEP)));
    assert_ne!(
        first[0], last[0],
        "the steps ran: x {first:?} then {last:?}"
    );
    assert_eq!(last[3..], forces(99.0 * STEP), "the forces read back");
    count
}

#[test]
fn an_fmi3_step_with_set_and_get_allocates_nothing() {
    let (inputs, read) = references();
    let (name, token) = names();
    // SAFETY: C strings, arrays and out-pointers live across each call and have the lengths
    // passed with them; the instance is used by this thread only and freed at the end.
    unsafe {
        let instance = fmi3::common::instantiate_co_simulation::<Model>(
            name.as_ptr(),
            token.as_ptr(),
            std::ptr::null(),
            FMI3_FALSE,
            FMI3_FALSE,
            FMI3_FALSE,
            FMI3_FALSE,
            std::ptr::null(),
            0,
            std::ptr::null_mut(),
            None,
            None,
        );
        assert!(!instance.is_null());
        let status = fmi3::common::enter_initialization_mode::<Model>(
            instance, FMI3_FALSE, 0.0, 0.0, FMI3_FALSE, 0.0,
        );
        assert_eq!(status, Fmi3Status::Ok);
        assert_eq!(
            fmi3::common::exit_initialization_mode::<Model>(instance),
            Fmi3Status::Ok
        );
        let count = count_steps(|t| {
            let (f, mut values) = (set_values(t), [0.0; 3 + FORCES]);
            let set = fmi3::variables::set_float64::<Model>(
                instance,
                inputs.as_ptr(),
                SET,
                f.as_ptr(),
                SET,
            );
            let (mut event, mut terminate, mut early, mut last) = (FMI3_TRUE, FMI3_TRUE, 0, 0.0);
            let step = fmi3::cosimulation::do_step::<Model>(
                instance,
                t,
                STEP,
                FMI3_TRUE,
                &mut event,
                &mut terminate,
                &mut early,
                &mut last,
            );
            let get = fmi3::variables::get_float64::<Model>(
                instance,
                read.as_ptr(),
                read.len(),
                values.as_mut_ptr(),
                values.len(),
            );
            assert_eq!([set, step, get], [Fmi3Status::Ok; 3], "at t = {t}");
            values
        });
        fmi3::common::free_instance::<Model>(instance);
        assert_eq!(
            count, 0,
            "99 fmi3SetFloat64, fmi3DoStep, fmi3GetFloat64 allocated {count} times"
        );
    }
}

/// The FMI 2.0 logger, declared without the variadic part: the instance passes a preformatted
/// message and no variadic arguments, which the C ABIs of Linux pass like this call.
unsafe extern "C" fn ignore(
    _env: *mut c_void,
    _name: Fmi2String,
    _status: Fmi2Status,
    _category: Fmi2String,
    _message: Fmi2String,
) {
}

#[test]
fn an_fmi2_step_with_set_and_get_allocates_nothing() {
    let (inputs, read) = references();
    let (name, guid) = names();
    type Logger = unsafe extern "C" fn(*mut c_void, Fmi2String, Fmi2Status, Fmi2String, Fmi2String);
    // SAFETY: see `ignore` for why the non-variadic function serves as the variadic logger.
    let logger = unsafe {
        std::mem::transmute::<
            Logger,
            unsafe extern "C" fn(*mut c_void, Fmi2String, Fmi2Status, Fmi2String, Fmi2String, ...),
        >(ignore)
    };
    let callbacks = Fmi2CallbackFunctions {
        logger: Some(logger),
        allocate_memory: None,
        free_memory: None,
        step_finished: None,
        component_environment: std::ptr::null_mut(),
    };
    // SAFETY: as in the FMI 3.0 test; the callbacks outlive the instance.
    unsafe {
        let c = fmi2::common::instantiate::<Model>(
            name.as_ptr(),
            FMI2_CO_SIMULATION,
            guid.as_ptr(),
            std::ptr::null(),
            &callbacks,
            FMI2_FALSE,
            FMI2_FALSE,
        );
        assert!(!c.is_null());
        let setup =
            fmi2::common::setup_experiment::<Model>(c, FMI2_FALSE, 0.0, 0.0, FMI2_FALSE, 0.0);
        let enter = fmi2::common::enter_initialization_mode::<Model>(c);
        let exit = fmi2::common::exit_initialization_mode::<Model>(c);
        assert_eq!([setup, enter, exit], [Fmi2Status::Ok; 3]);
        let count = count_steps(|t| {
            let (f, mut values) = (set_values(t), [0.0; 3 + FORCES]);
            let set = fmi2::variables::set_real::<Model>(c, inputs.as_ptr(), SET, f.as_ptr());
            let step = fmi2::cosimulation::do_step::<Model>(c, t, STEP, FMI2_TRUE);
            let get = fmi2::variables::get_real::<Model>(
                c,
                read.as_ptr(),
                read.len(),
                values.as_mut_ptr(),
            );
            assert_eq!([set, step, get], [Fmi2Status::Ok; 3], "at t = {t}");
            values
        });
        fmi2::common::free_instance::<Model>(c);
        assert_eq!(
            count, 0,
            "99 fmi2SetReal, fmi2DoStep, fmi2GetReal allocated {count} times"
        );
    }
}
