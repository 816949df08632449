/* run_main.c: the tile-run command's main: execute a compiled tile kernel
 * on the CPU (docs/tile-run.md). Accepts: PTX, Tile IR bytecode or JSON IR,
 * and one argument per kernel parameter. Guarantees: see cli.c and
 * tilerun.h (the library it runs through). */
int run_main(int argc, char **argv);

int main(int argc, char **argv)
{
	return run_main(argc, argv);
}
