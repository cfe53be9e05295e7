use crane_cylinder::CraneCylinder;
use fmu_export::adjoint::{parameter_sensitivities, record_trajectory, replay_trajectory, EventTimeSensitivity, ScheduledStep};
use fmu_export::{Integrator, OdeSystem, StepInputs, System};

#[test]
fn scratch() {
    let sys = OdeSystem::<CraneCylinder>::default();
    let d = sys.declaration();
    let (x, u, p, disc) = (d.state_starts(), d.input_starts(), d.parameter_starts(), d.discrete_starts());
    let names: Vec<&str> = d.parameters.iter().map(|p| p.var.name.as_str()).collect();
    let j = names.iter().position(|n| *n == "beta_a").unwrap();
    let mut u = u.clone(); u[1] = 0.01;
    let h = 1e-3;
    let schedule = vec![ScheduledStep { h, inputs: StepInputs::held(0.0, &u) }];
    let mut integ = sys.integrator();
    let traj = record_trajectory(&sys, &mut integ, &x, &p, &disc, &schedule).unwrap();
    for s in &traj.steps[0].segments { if let fmu_export::integrators::tape::Segment::Step{t,h,end,..} = s { println!("  step t={t} h={h} {end:?}"); } }
    let sens = parameter_sensitivities(&sys, integ.scheme(), &traj, EventTimeSensitivity::Included).unwrap();
    let adj = sens[1].column(j);
    let inputs: Vec<StepInputs<f64>> = schedule.iter().map(|s| s.inputs.clone()).collect();
    for rel in [1e-2, 1e-4, 1e-6, 1e-8] {
        let delta = rel * p[j];
        let mut pp = p.clone(); pp[j] += delta; let mut pm = p.clone(); pm[j] -= delta;
        let a = replay_trajectory(&sys, integ.scheme(), &traj, &x, &pp, &inputs).unwrap();
        let b = replay_trajectory(&sys, integ.scheme(), &traj, &x, &pm, &inputs).unwrap();
        let rep: Vec<f64> = (0..2).map(|i| (a[1][i] - b[1][i]) / (2.0 * delta)).collect();
        let fresh = |pv: &[f64]| { let mut i2 = sys.integrator(); let t = record_trajectory(&sys, &mut i2, &x, pv, &disc, &schedule).unwrap(); t.state(1)[..2].to_vec() };
        let (fa, fb) = (fresh(&pp), fresh(&pm));
        let ada: Vec<f64> = (0..2).map(|i| (fa[i] - fb[i]) / (2.0 * delta)).collect();
        println!("rel {rel}: adjoint {:?} replay {:?} adaptive {:?}", &adj[..2], rep, ada);
    }
}
