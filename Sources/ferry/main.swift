import FerryKit
print(VisitorClassifier.shared.classify(userAgent: CommandLine.arguments.dropFirst().first ?? ""))
