// The commands' mains. Every command (sbatch, squeue, ...) is a function here,
// defined in its own folder (cli/sbatch/sbatch.cc, ...), and one program,
// skiff-client, runs them all: it picks the command by the name it was called
// by (cli/command_table.h), so each command name is a link to it.
//
// A command's main is called once, on the program's main thread, with argv[0]
// the command's name; it may exit the process itself (ExitNow).
#ifndef SKIFF_CLI_COMMAND_H_
#define SKIFF_CLI_COMMAND_H_

#include <string>

namespace skiff::cli {

// What every command prints for --version (and scontrol for `version`), as
// Slurm's print "slurm 22.05.x".
std::string VersionLine();

// --version, --help and --usage, as a command's parser read them.
struct AskedInfo {
  bool version = false;
  bool help = false;
  bool usage = false;
};
// Prints, on stdout, the first of them that was asked for (the version, then
// the help, then the usage: a command's texts made by `help` and `usage`,
// null where it has no such option) and returns true: the command then exits
// 0. False when none was asked for.
bool PrintAskedInfo(const AskedInfo& asked, std::string (*help)(), std::string (*usage)());

int SacctMain(int argc, char** argv);
int SacctmgrMain(int argc, char** argv);
int SallocMain(int argc, char** argv);
int SattachMain(int argc, char** argv);
int SbatchMain(int argc, char** argv);
int SbcastMain(int argc, char** argv);
int ScancelMain(int argc, char** argv);
int ScontrolMain(int argc, char** argv);
int SeffMain(int argc, char** argv);
int SdiagMain(int argc, char** argv);
int SinfoMain(int argc, char** argv);
int SprioMain(int argc, char** argv);
int SqueueMain(int argc, char** argv);
int SreportMain(int argc, char** argv);
int SrunMain(int argc, char** argv);
int SshareMain(int argc, char** argv);
int SstatMain(int argc, char** argv);
int SstatusMain(int argc, char** argv);
int StriggerMain(int argc, char** argv);

}  // namespace skiff::cli

#endif  // SKIFF_CLI_COMMAND_H_
