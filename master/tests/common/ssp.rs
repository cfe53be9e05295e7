//! The double oscillator of a [`Setup`] as an SSP 1.0 system structure description, packaged
//! with its FMUs (`.ssp`) or as a bare `.ssd`. The description uses every part of the supported
//! subset: parameter values inline on a component, in an `.ssv` file and at system level with
//! a prefix; a connection written from input to output; the default experiment; and the Tandem
//! annotations for the macro step, the schedule, the recorded variables and a component step.

use std::path::{Path, PathBuf};

use super::double_oscillator::Setup;
use tandem_tests::double_oscillator::DoubleOscillator;
use tandem_tests::fmus::{self, FmiVersion};

/// Where the description finds its files.
pub struct Sources {
    /// The mass FMU.
    pub mass: String,
    /// The spring FMU.
    pub spring: String,
    /// The parameter set of mass2.
    pub mass2_parameters: String,
}

impl Sources {
    /// The layout of a package: everything under `resources/`.
    pub fn packaged() -> Self {
        Sources {
            mass: "resources/mass.fmu".into(),
            spring: "resources/spring_damper.fmu".into(),
            mass2_parameters: "resources/mass2.ssv".into(),
        }
    }
}

/// One parameter of a parameter set: name, SSV type, value and unit.
type Value<'a> = (&'a str, &'a str, String, Option<&'a str>);

/// An `ssv:ParameterSet` element with `values`.
fn parameter_set(name: &str, values: &[Value<'_>]) -> String {
    let parameters: String = values
        .iter()
        .map(|(name, ty, value, unit)| {
            let unit = unit.map(|u| format!(" unit=\"{u}\"")).unwrap_or_default();
            format!(
                "        <ssv:Parameter name=\"{name}\"><ssv:{ty} value=\"{value}\"{unit}/></ssv:Parameter>\n"
            )
        })
        .collect();
    format!(
        "<ssv:ParameterSet version=\"1.0\" name=\"{name}\">\n      <ssv:Parameters>\n{parameters}      </ssv:Parameters>\n    </ssv:ParameterSet>"
    )
}

/// The `.ssv` file with mass2's parameters and start values.
pub fn mass2_parameters(setup: &Setup) -> String {
    let p = &setup.system;
    let [_, x2, _, v2] = DoubleOscillator::INITIAL_STATE;
    let set = parameter_set(
        "mass2",
        &[
            ("m", "Real", format!("{:?}", p.m2), Some("kg")),
            ("k", "Real", format!("{:?}", p.k2), None),
            ("x", "Real", format!("{x2:?}"), None),
            ("v", "Real", format!("{v2:?}"), Some("m/s")),
        ],
    );
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{}\n",
        set.replacen(
            "<ssv:ParameterSet ",
            "<ssv:ParameterSet xmlns:ssv=\"http://ssp-standard.org/SSP1/SystemStructureParameterValues\" ",
            1
        )
    )
}

/// The system structure description of `setup` (the same system as [`Setup::toml`]).
pub fn ssd(setup: &Setup, sources: &Sources) -> String {
    let p = &setup.system;
    let [x1, _, v1, _] = DoubleOscillator::INITIAL_STATE;
    let implementation = match setup.mass_interface {
        "me" => " implementation=\"ModelExchange\"",
        _ => "",
    };
    let mass2_step = match (setup.mass_interface, setup.mass2_sub_steps) {
        ("cs", n) if n > 1 => format!(
            "\n      <ssd:Annotations><ssc:Annotation type=\"tandem\"><Component step=\"{:?}\"/></ssc:Annotation></ssd:Annotations>",
            setup.macro_step / n as f64
        ),
        _ => String::new(),
    };
    let order = setup
        .order
        .map(|o| format!(" order=\"{}\"", o.join(" ")))
        .unwrap_or_default();
    let mass1_values = parameter_set(
        "mass1",
        &[
            ("m", "Real", format!("{:?}", p.m1), Some("kg")),
            ("k", "Real", format!("{:?}", p.k1), Some("N/m")),
            ("x", "Real", format!("{x1:?}"), None),
            ("v", "Real", format!("{v1:?}"), None),
        ],
    );
    let spring_values = parameter_set(
        "spring",
        &[("k", "Real", format!("{:?}", p.kc), Some("N/m"))],
    );
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<ssd:SystemStructureDescription xmlns:ssc="http://ssp-standard.org/SSP1/SystemStructureCommon"
    xmlns:ssd="http://ssp-standard.org/SSP1/SystemStructureDescription"
    xmlns:ssv="http://ssp-standard.org/SSP1/SystemStructureParameterValues"
    version="1.0" name="DoubleOscillator">
  <ssd:System name="DoubleOscillator">
    <ssd:ParameterBindings>
      <ssd:ParameterBinding prefix="spring.">
        <ssd:ParameterValues>
    {spring_values}
        </ssd:ParameterValues>
      </ssd:ParameterBinding>
    </ssd:ParameterBindings>
    <ssd:Elements>
      <ssd:Component name="mass1" type="application/x-fmu-sharedlibrary" source="{mass}"{implementation}>
        <ssd:Connectors>
          <ssd:Connector name="F" kind="input"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="position" kind="output"><ssc:Real/></ssd:Connector>
          <ssd:Connector name="velocity" kind="output"><ssc:Real/></ssd:Connector>
        </ssd:Connectors>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding>
            <ssd:ParameterValues>
    {mass1_values}
            </ssd:ParameterValues>
          </ssd:ParameterBinding>
        </ssd:ParameterBindings>
      </ssd:Component>
      <ssd:Component name="spring" source="{spring}">
        <ssd:ElementGeometry x1="0" y1="0" x2="1" y2="1"/>
      </ssd:Component>
      <ssd:Component name="mass2" source="{mass}"{implementation}>
        <ssd:ParameterBindings>
          <ssd:ParameterBinding source="{mass2_parameters}"/>
        </ssd:ParameterBindings>{mass2_step}
      </ssd:Component>
    </ssd:Elements>
    <ssd:Connections>
      <ssd:Connection startElement="mass1" startConnector="position" endElement="spring" endConnector="x_a"/>
      <ssd:Connection startElement="mass1" startConnector="velocity" endElement="spring" endConnector="v_a"/>
      <ssd:Connection startElement="mass2" startConnector="position" endElement="spring" endConnector="x_b"/>
      <ssd:Connection startElement="mass2" startConnector="velocity" endElement="spring" endConnector="v_b"/>
      <ssd:Connection startElement="mass1" startConnector="F" endElement="spring" endConnector="f_a"/>
      <ssd:Connection startElement="spring" startConnector="f_b" endElement="mass2" endConnector="F">
        <ssd:ConnectionGeometry pointsX="0.5" pointsY="0.5"/>
      </ssd:Connection>
    </ssd:Connections>
    <ssd:Annotations>
      <ssc:Annotation type="org.example.other-tool"><Ignored/></ssc:Annotation>
      <ssc:Annotation type="tandem"><Experiment step="{h:?}"/></ssc:Annotation>
      <ssc:Annotation type="tandem"><Schedule kind="{kind}"{order} extrapolation="{extrapolation}"/></ssc:Annotation>
      <ssc:Annotation type="tandem"><Output variables="mass1.position mass2.position mass1.velocity mass2.velocity spring.f_a"/></ssc:Annotation>
    </ssd:Annotations>
  </ssd:System>
  <ssd:DefaultExperiment startTime="0.0" stopTime="{stop:?}"/>
</ssd:SystemStructureDescription>
"#,
        mass = sources.mass,
        spring = sources.spring,
        mass2_parameters = sources.mass2_parameters,
        h = setup.macro_step,
        kind = setup.kind,
        extrapolation = setup.extrapolation,
        stop = setup.stop,
    )
}

/// Writes `ssd` with the test FMUs and mass2's parameter set as the package `dir/name.ssp`.
pub fn write_package(dir: &Path, name: &str, setup: &Setup, ssd: &str) -> PathBuf {
    write_package_with(dir, name, setup, ssd, &[])
}

/// [`write_package`] with `extra` files (name in the package, content) added.
pub fn write_package_with(
    dir: &Path,
    name: &str,
    setup: &Setup,
    ssd: &str,
    extra: &[(&str, &[u8])],
) -> PathBuf {
    let read = |model: &str| {
        std::fs::read(&fmus::find(model, FmiVersion::Fmi3).path).expect("read a test FMU")
    };
    let (mass, spring) = (read("mass"), read("spring_damper"));
    let parameters = mass2_parameters(setup);
    let mut files = vec![
        ("SystemStructure.ssd", ssd.as_bytes()),
        ("resources/mass.fmu", &mass),
        ("resources/spring_damper.fmu", &spring),
        ("resources/mass2.ssv", parameters.as_bytes()),
    ];
    files.extend_from_slice(extra);
    super::write_zip(&dir.join(format!("{name}.ssp")), &files)
}
