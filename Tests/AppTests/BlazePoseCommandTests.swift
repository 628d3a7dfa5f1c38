import CLibJPEG
import Foundation
import PoseKit
import Testing

/// `posekit pose --model blazepose` and `--video`, end to end through the binary.
@Suite(.serialized) struct BlazePoseCommandTests {
    static let reference = CLI.shared.appendingPathComponent("reference/mediapipe/pipelines")
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-blazepose-command-\(getpid())")

    /// The image as MediaPipe's goldens saw it (libjpeg, not ffmpeg), written as a PPM.
    static func libjpegPPM(_ name: String) throws -> String {
        let jpeg = CLI.shared.appendingPathComponent("media/images/\(name).jpg").path
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let pixels = try #require(posekit_libjpeg_decode(jpeg, &width, &height, &message, message.count), "\(jpeg): libjpeg failed")
        defer { free(pixels) }
        let image = RGBImage(width: Int(width), height: Int(height),
                             pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3)))
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("\(name).ppm").path
        try Data(PPMWriter.encode(image)).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    /// One reference image: MediaPipe's 33 landmarks (pixels, z, visibility, presence) and world
    /// points, through the command's JSON (pixels to 1/100, scores to 1e-4, metres to 0.1 mm).
    @Test func blazePoseOnAReferenceImageGivesMediaPipesLandmarks() throws {
        let name = "coco_000000000785"
        let ppm = try Self.libjpegPPM(name)
        let result = try CLI.run(["pose", "--model", "blazepose", ppm])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let line = try Self.object(try #require(result.lines.first))
        let pose = try #require((line["poses"] as? [[String: Any]])?.first)
        #expect(pose["id"] == nil, "an image has no ids")
        let keypoints = try #require(pose["keypoints"] as? [[String: Any]])
        let world = try #require(pose["world"] as? [[String: Double]])
        let expected = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.reference
            .appendingPathComponent(name).appendingPathComponent("mp_pose_pipeline.json"))) as? [String: Any])
        let width = try #require(expected["width"] as? Double), height = try #require(expected["height"] as? Double)
        let landmarks = try #require((expected["pose_landmarks"] as? [String: Any])?["landmark"] as? [[String: Double]])
        let worldLandmarks = try #require((expected["pose_world_landmarks"] as? [String: Any])?["landmark"] as? [[String: Double]])
        #expect(keypoints.count == 33 && world.count == 33)
        #expect(keypoints.map { $0["part"] as? String } == KeypointSet.blazePose33.names.map { $0 })
        var sum = 0.0, worst = 0.0
        for (ours, theirs) in zip(keypoints, landmarks) {
            let dx = (ours["x"] as! Double) - theirs["x"]! * width, dy = (ours["y"] as! Double) - theirs["y"]! * height
            let distance = (dx * dx + dy * dy).squareRoot()
            sum += distance
            worst = max(worst, distance)
            #expect(abs((ours["z"] as! Double) - theirs["z"]! * width) <= 1)
            #expect(abs((ours["visibility"] as! Double) - theirs["visibility"]!) <= 2e-3)
            #expect(ours["score"] as? Double == ours["visibility"] as? Double)
            #expect(abs((ours["presence"] as! Double) - theirs["presence"]!) <= 2e-3)
        }
        // The library's bar on this image (EndToEndTests: 0.1 px mean over the 14 images, this one
        // about 0.005 px) plus the JSON's rounding to 1/100 pixel.
        #expect(sum / 33 <= 0.1, "landmarks \(sum / 33) px from MediaPipe's on average")
        #expect(worst <= 1)
        for (ours, theirs) in zip(world, worldLandmarks) {
            #expect(abs(ours["x"]! - theirs["x"]!) <= 2e-3 && abs(ours["y"]! - theirs["y"]!) <= 2e-3 && abs(ours["z"]! - theirs["z"]!) <= 2e-3)
        }
        // --coordinates as for PoseNet: x/W, y/H, z/W.
        let normalized = try CLI.run(["pose", "--model", "blazepose", "--coordinates", "normalized", ppm])
        let normalizedLine = try Self.object(try #require(normalized.lines.first))
        let normalizedPose = try #require((normalizedLine["poses"] as? [[String: Any]])?.first)
        for (n, p) in zip(try #require(normalizedPose["keypoints"] as? [[String: Any]]), keypoints) {
            #expect(abs((n["x"] as! Double) * width - (p["x"] as! Double)) <= 0.006)
            #expect(abs((n["z"] as! Double) * width - (p["z"] as! Double)) <= 0.006)
        }
        print("pose --model blazepose on \(name) (libjpeg PPM): landmarks mean \(sum / 33) px, worst \(worst) px from MediaPipe's")
    }

    /// The same frames as PPM files with --video and as one Y4M: the same lines but for
    /// "source", with BlazePose (tracking, MediaPipe's filters, ids) and PoseNet (ids, smoothing).
    @Test func ppmFilesWithVideoGiveWhatTheY4MGives() throws {
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        let clip = CLI.shared.appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4").path
        let y4m = Self.folder.appendingPathComponent("clip.y4m").path
        let ffmpeg = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", clip, "-frames:v", "6", "-vf", "scale=480:270",
                                         "-pix_fmt", "yuv420p", "-r", "30", "-f", "yuv4mpegpipe", y4m])
        try #require(ffmpeg.status == 0, "ffmpeg: \(ffmpeg.stderr)")
        // The Y4M's frames as RGB, as posekit converts them, one PPM each.
        let reader = try MediaReader(path: y4m)
        var ppms: [String] = []
        while let frame = try reader.next() {
            let path = Self.folder.appendingPathComponent(String(format: "frame%03d.ppm", ppms.count)).path
            try Data(PPMWriter.encode(frame.rgb())).write(to: URL(fileURLWithPath: path))
            ppms.append(path)
        }
        try #require(ppms.count == 6)
        func withoutSource(_ lines: [String]) throws -> [String] {
            try lines.map { line in
                let start = try #require(line.range(of: "\"frame\": "))
                return String(line[start.lowerBound...])
            }
        }
        let stream = ppms.reduce(Data()) { $0 + (try! Data(contentsOf: URL(fileURLWithPath: $1))) }
        for model in ["blazepose", "mobilenet075"] {
            let video = try CLI.run(["pose", "--model", model, y4m])
            let images = try CLI.run(["pose", "--model", model, "--video"] + ppms)
            let piped = try CLI.run(["pose", "--model", model, "--video", "-"], stdin: stream)
            #expect(video.status == 0 && images.status == 0 && piped.status == 0, "\(video.stderr) \(images.stderr) \(piped.stderr)")
            #expect(images.lines.count == 6)
            #expect(try withoutSource(images.lines) == (try withoutSource(piped.lines)), "\(model): PPM files and a PNM stream differ")
            if model == "blazepose" {
                // BlazePose reads every frame as RGB (the Y4M's converted as the PPMs were): the same bytes.
                #expect(try withoutSource(images.lines) == (try withoutSource(video.lines)), "\(model): --video PPMs differ from the Y4M")
            } else {
                // PoseNet resizes a Y4M's planes before converting them (one fused pass), an RGB image
                // after: the same people, ids and times, keypoints a little apart.
                let a = try PoseJSONLinesDecoder.decodeAll(images.stdoutText), b = try PoseJSONLinesDecoder.decodeAll(video.stdoutText)
                #expect(a.map(\.time) == b.map(\.time) && a.map { $0.poses.map(\.id) } == b.map { $0.poses.map(\.id) })
            }
            #expect(images.lines.allSatisfy { $0.contains("\"time\": ") && $0.contains("\"id\": 1") }, "\(model): \(images.lines.first ?? "")")
            #expect(images.lines.enumerated().allSatisfy { $1.hasPrefix("{\"source\": \"\(ppms[$0])\"") })
            // Without --video each image is a picture of its own: no time, no id.
            let apart = try CLI.run(["pose", "--model", model, ppms[0], ppms[1]])
            #expect(apart.lines.count == 2 && apart.lines.allSatisfy { !$0.contains("\"time\"") && !$0.contains("\"id\"") })
        }
    }

    @Test func poseNetOptionsAreRefusedWithBlazePose() throws {
        let photo = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        let flip = try CLI.run(["pose", "--model", "blazepose", "--flip", "--input-size", "353", photo])
        #expect(flip.status == 64 || flip.status == 2, "\(flip.status)")
        #expect(flip.stderr.contains("--input-size, --flip are PoseNet options"), "\(flip.stderr)")
        let tiny = Self.folder.appendingPathComponent("tiny.ppm")
        try FileManager.default.createDirectory(at: Self.folder, withIntermediateDirectories: true)
        try Data("P6\n1 1\n255\n".utf8 + [200, 100, 50]).write(to: tiny)
        let oneByOne = try CLI.run(["pose", "--model", "blazepose", tiny.path])
        #expect(oneByOne.status == 0 && oneByOne.lines == ["{\"source\": \"\(tiny.path)\", \"frame\": 0, \"width\": 1, \"height\": 1, \"poses\": []}"],
                "\(oneByOne.stdoutText) \(oneByOne.stderr)")
    }
}

/// `--max-poses` has no default of its own: absent, each model's (BlazePose 1); given, even at
/// PoseNet's 20, it is BlazePose's number of people.
@Suite struct BlazePoseMaxPosesOptionTests {
    @Test func maxPosesIsBlazePosesNumberOfPeopleWhenGiven() throws {
        // Three labelled people; BlazePose's detector finds two (BlazePoseMultiPersonTests). With more than one person
        // PoseNet's people BlazePose cannot read are reported from PoseNet's poses too (BlazePoseEveryoneTests): the
        // people BlazePose read are counted, and with --blazepose-only they are all.
        let photo = CLI.shared.appendingPathComponent("media/images-val/aic_fa436c914fe4a8ec1ec5474af4d3820b84d17561.jpg").path
        var counts: [Int] = []
        for options in [[], ["--max-poses", "20"], ["--max-poses", "1"], ["--max-poses", "20", "--blazepose-only"]] {
            let run = try CLI.run(["pose", "--model", "blazepose"] + options + [photo])
            #expect(run.status == 0, "\(options): \(run.stderr)")
            let poses = try PoseJSONLinesDecoder.decodeAll(run.stdoutText).first?.poses
            counts.append(poses?.filter { $0.landmarksFrom == nil }.count ?? -1)
            if options.last == "--blazepose-only" { #expect(poses?.count == 2) }
        }
        #expect(counts == [1, 2, 1, 2], "poses BlazePose read without --max-poses, with 20, with 1, with 20 and --blazepose-only: \(counts)")
    }

    @Test func blazePoseOnlyWithOnePersonIsAnError() throws {
        // One person (the default, or --max-poses 1): PoseNet never runs, so --blazepose-only would turn nothing off.
        let photo = CLI.shared.appendingPathComponent("media/images-val/aic_fa436c914fe4a8ec1ec5474af4d3820b84d17561.jpg").path
        for options in [["--blazepose-only"], ["--max-poses", "1", "--blazepose-only"]] {
            let run = try CLI.run(["pose", "--model", "blazepose"] + options + [photo])
            #expect(run.status != 0 && run.stdoutText.isEmpty, "\(options): exit \(run.status)")
            #expect(run.stderr.contains("--blazepose-only is for --max-poses N (N > 1)") && run.stderr.split(separator: "\n").count == 1,
                    "\(options): \(run.stderr)")
        }
    }
}
