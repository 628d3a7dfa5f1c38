import PoseNet
import PoseCore
import Foundation

/// COCO-format person-keypoint ground truth (`images`, `annotations`, `categories`), as read by
/// pycocotools, in COCO-17 keypoint order (the same order as ``BodyPart``).
public struct CocoKeypointDataset: Sendable {
    /// One image the ground truth covers.
    public struct Image: Sendable, Equatable {
        public var id: Int
        public var fileName: String
        public var width: Int
        public var height: Int
        public init(id: Int, fileName: String, width: Int, height: Int) {
            self.id = id; self.fileName = fileName; self.width = width; self.height = height
        }
    }

    /// One labeled person.
    public struct Annotation: Sendable, Equatable {
        public var id: Int
        public var imageID: Int
        /// 17 `(x, y, visibility)` triples flattened, COCO convention: visibility 0 = not labeled,
        /// 1 = labeled but occluded, 2 = labeled and visible. Only visibility > 0 counts.
        public var keypoints: [Double]
        /// The file's `num_keypoints` (number of labeled keypoints). pycocotools ignores a
        /// person whose `num_keypoints` is 0 even if some visibilities are set.
        public var labeledKeypointCount: Int
        /// Segment area in squared pixels: the OKS scale `s²` and the area-range filter.
        public var area: Double
        /// `[x, y, width, height]`; used only for people with no labeled keypoints.
        public var bbox: [Double]
        /// Crowd regions may match many detections and are never counted as misses.
        public var isCrowd: Bool

        public init(id: Int, imageID: Int, keypoints: [Double], labeledKeypointCount: Int? = nil,
                    area: Double, bbox: [Double] = [0, 0, 0, 0], isCrowd: Bool = false) {
            self.id = id; self.imageID = imageID; self.keypoints = keypoints
            self.labeledKeypointCount = labeledKeypointCount
                ?? stride(from: 2, to: keypoints.count, by: 3).filter { keypoints[$0] > 0 }.count
            self.area = area; self.bbox = bbox; self.isCrowd = isCrowd
        }

        /// pycocotools' `ignore` flag: crowd regions and people with no labeled keypoints.
        var isIgnored: Bool { isCrowd || labeledKeypointCount == 0 }
    }

    public var images: [Image]
    /// Person annotations only (other categories are dropped when loading).
    public var annotations: [Annotation]

    public init(images: [Image], annotations: [Annotation]) {
        self.images = images
        self.annotations = annotations
    }

    /// The images with these ids and their annotations (to score a subset on its own).
    public func restricted(to imageIDs: Set<Int>) -> CocoKeypointDataset {
        CocoKeypointDataset(images: images.filter { imageIDs.contains($0.id) },
                            annotations: annotations.filter { imageIDs.contains($0.imageID) })
    }

    /// The image whose `file_name` is `fileName`, compared by last path component, or failing
    /// that by name without extension (so `photo.ppm` finds the ground truth of `photo.jpg`).
    public func image(named fileName: String) -> Image? {
        let name = (fileName as NSString).lastPathComponent
        if let exact = images.first(where: { ($0.fileName as NSString).lastPathComponent == name }) { return exact }
        let stem = (name as NSString).deletingPathExtension
        return images.first { (($0.fileName as NSString).lastPathComponent as NSString).deletingPathExtension == stem }
    }

    /// The people a score counts: neither crowd regions nor people without labeled keypoints.
    public var scoredPeopleCount: Int { annotations.filter { !$0.isIgnored }.count }

    /// Reads a COCO keypoint annotation file, keeping the `person` category (or category 1 when
    /// no category is named `person`).
    ///
    /// - Throws: ``EvaluationError/invalidGroundTruth(_:)`` naming the file and the problem when it
    ///   is not valid JSON, misses a required field, an annotation does not have 17 keypoints or
    ///   is on an image `images` does not list, or two images share an id or a file name (each
    ///   would be scored twice, or an input could not tell them apart).
    public init(contentsOf url: URL) throws {
        struct File: Decodable {
            struct Img: Decodable { let id: Int; let file_name: String; let width: Int; let height: Int }
            struct Ann: Decodable {
                let id: Int; let image_id: Int; let category_id: Int; let keypoints: [Double]
                let num_keypoints: Int?; let area: Double; let bbox: [Double]?; let iscrowd: Int?
            }
            struct Cat: Decodable { let id: Int; let name: String }
            let images: [Img]; let annotations: [Ann]; let categories: [Cat]?
        }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: RegularFile.contents(atPath: url.path))
        } catch let error as RegularFileError {
            throw EvaluationError.invalidGroundTruth(error.description)
        } catch {
            throw EvaluationError.invalidGroundTruth("\(url.path): \(PlainErrorMessage.describe(error))")
        }
        var fileNameOfImage: [Int: String] = [:], imageOfFileName: [String: Int] = [:]
        for image in file.images {
            if let other = fileNameOfImage[image.id] {
                throw EvaluationError.invalidGroundTruth("\(url.path): image id \(image.id) is used twice (\(other) and \(image.file_name))")
            }
            let name = (image.file_name as NSString).lastPathComponent
            if let other = imageOfFileName[name] {
                throw EvaluationError.invalidGroundTruth("\(url.path): images \(other) and \(image.id) have the same file name \(name)")
            }
            fileNameOfImage[image.id] = image.file_name
            imageOfFileName[name] = image.id
        }
        let person = file.categories?.first { $0.name == "person" }?.id ?? 1
        var annotations: [Annotation] = []
        for a in file.annotations where a.category_id == person {
            guard fileNameOfImage[a.image_id] != nil else {
                throw EvaluationError.invalidGroundTruth("\(url.path): annotation \(a.id) is on image \(a.image_id), which \"images\" does not list")
            }
            guard a.keypoints.count == 3 * BodyPart.count else {
                throw EvaluationError.invalidGroundTruth(
                    "\(url.path): annotation \(a.id) has \(a.keypoints.count) keypoint values, expected \(3 * BodyPart.count)")
            }
            guard a.area.isFinite, a.area >= 0 else {
                throw EvaluationError.invalidGroundTruth("\(url.path): annotation \(a.id) has area \(a.area)")
            }
            annotations.append(Annotation(id: a.id, imageID: a.image_id, keypoints: a.keypoints,
                                          labeledKeypointCount: a.num_keypoints, area: a.area,
                                          bbox: a.bbox ?? [0, 0, 0, 0], isCrowd: (a.iscrowd ?? 0) != 0))
        }
        self.init(images: file.images.map { Image(id: $0.id, fileName: $0.file_name, width: $0.width, height: $0.height) },
                  annotations: annotations)
    }
}

/// Why an evaluation could not run.
public enum EvaluationError: Error, CustomStringConvertible, Equatable {
    /// The ground-truth file is unreadable or malformed.
    case invalidGroundTruth(String)
    /// A detection does not fit the ground truth (unknown image, wrong keypoint count, bad score).
    case invalidDetection(String)

    public var description: String {
        switch self {
        case .invalidGroundTruth(let message): return "invalid ground truth: \(message)"
        case .invalidDetection(let message): return "invalid detection: \(message)"
        }
    }
}

extension EvaluationError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
