import ArgumentParser
// Commands whose implementations are being built on other branches; merged over this file.
struct Actions: ParsableCommand { static let configuration = CommandConfiguration(commandName: "actions", abstract: "Recognise actions (not yet built).") }
struct Eval: ParsableCommand { static let configuration = CommandConfiguration(commandName: "eval", abstract: "Evaluate accuracy (not yet built).") }
struct Import: ParsableCommand { static let configuration = CommandConfiguration(commandName: "import", abstract: "Import weights (not yet built).") }
struct Info: ParsableCommand { static let configuration = CommandConfiguration(commandName: "info", abstract: "Describe a model (not yet built).") }
struct TrainActions: ParsableCommand { static let configuration = CommandConfiguration(commandName: "train-actions", abstract: "Train ActionNet (not yet built).") }
