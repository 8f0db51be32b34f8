import _CryptoExtras
import Crypto
import Foundation

/// Dashboard passwords, kept only as scrypt hashes (`scrypt$N$r$p$salt$hash`, base64): memory-
/// hard and slow (about a tenth of a second here), so a stolen database does not give them up
/// quickly.
public enum Passwords {
    static let cost = 1 << 15, blockSize = 8, parallelism = 1

    /// 12 to 1,024 characters.
    public static func check(_ password: String) -> String? {
        if password.count < 12 { return "a password has at least 12 characters" }
        if password.utf8.count > 1024 { return "a password has at most 1,024 bytes" }
        return nil
    }

    public static func hash(_ password: String) throws -> String {
        var salt = [UInt8](repeating: 0, count: 16)
        var generator = SystemRandomNumberGenerator()
        for index in salt.indices { salt[index] = UInt8.random(in: 0...255, using: &generator) }
        let key = try derive(password, salt: salt, cost: cost, blockSize: blockSize, parallelism: parallelism)
        return "scrypt$\(cost)$\(blockSize)$\(parallelism)$\(Data(salt).base64EncodedString())$\(Data(key).base64EncodedString())"
    }

    /// Whether `password` matches a stored hash (compared in constant time).
    public static func verify(_ password: String, against stored: String) -> Bool {
        let parts = stored.split(separator: "$").map(String.init)
        guard parts.count == 6, parts[0] == "scrypt", let cost = Int(parts[1]), let blockSize = Int(parts[2]), let parallelism = Int(parts[3]),
              (1 << 10 ... 1 << 20).contains(cost), (1...32).contains(blockSize), (1...16).contains(parallelism),
              let salt = Data(base64Encoded: parts[4]), let expected = Data(base64Encoded: parts[5]),
              let key = try? derive(password, salt: Array(salt), cost: cost, blockSize: blockSize, parallelism: parallelism) else { return false }
        return ConstantTime.equal(key, expected)
    }

    private static func derive(_ password: String, salt: [UInt8], cost: Int, blockSize: Int, parallelism: Int) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(from: Array(password.utf8), salt: salt, outputByteCount: 32, rounds: cost,
                                           blockSize: blockSize, parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}
