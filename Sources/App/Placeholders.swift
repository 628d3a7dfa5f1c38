import ArgumentParser
// Commands whose implementations are being built on other branches; merged over this file.
struct Actions: ParsableCommand { static let configuration = CommandConfiguration(commandName: "actions", abstract: "Recognise actions (not yet built).") }
struct TrainActions: ParsableCommand { static let configuration = CommandConfiguration(commandName: "train-actions", abstract: "Train ActionNet (not yet built).") }
