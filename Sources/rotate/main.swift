import RotateCommands

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Entry point only: dispatch to the subcommand and exit with its code.
exit(RotateCommandLine.run(Array(CommandLine.arguments.dropFirst())))
