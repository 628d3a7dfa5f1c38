import ArgumentParser

@main
struct PoseKit: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "posekit", abstract: "Find body poses and actions in images and video.",
        subcommands: [ActionsCommand.self, TrainActionsCommand.self])
}
