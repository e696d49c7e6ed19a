/* answers nothing; a grandchild keeps the pipes open forever while the parent exits 0 */
#include <unistd.h>
int main(void) {
    if (fork() == 0) { setsid(); for (;;) pause(); }
    return 0;
}
