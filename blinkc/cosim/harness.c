/*
 * blinkc's co-simulation harness: Blinks tiles as simavr cores (docs/cosim.md).
 *
 * Each tile is one stock libsimavr 1.6 "atmega168" core running the images `blinkc build`
 * makes (the game at 0x1700 and the user's BlinkBIOS in the boot section). What the 168PB
 * does that simavr's 168 does not is done here, around the core, never by patching it:
 *
 *  - BOOTRST: the core starts at the boot reset vector (reset_pc), as the fuse makes it;
 *  - IVSEL (MCUCR bit 1): simavr always vectors to 0; while IVSEL is set, the hook on the
 *    interrupt table's "running" IRQ moves the pc to the boot section's table;
 *  - sleep: simavr's default sleep callback sleeps in real time; ours returns at once;
 *  - the 168PB's serial-number bytes (data 0xF0..0xF8) are written after each reset;
 *  - port E (data 0x2C..0x2E) has no simavr module on the 168: its registers are plain
 *    memory, which is all the BIOS needs of them (checked in tests/cosim).
 *
 * A cluster steps its tiles in lock-step slices of world time (a few hundred cycles), on a
 * few threads with a barrier per slice. IR is modelled at the pins: a rising anode (PBn,
 * an output) of one tile is a flash; one slice later it pulls the facing tile's cathode pin
 * (PCm) low if that pin is an input, as light discharging the charged LED does.
 *
 * Only simavr's public headers are used; no simavr or SDK source is in this file.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <simavr/sim_avr.h>
#include <simavr/sim_irq.h>
#include <simavr/sim_io.h>
#include <simavr/sim_interrupts.h>
#include <simavr/sim_cycle_timers.h>
#include <simavr/avr_ioport.h>
#include <simavr/avr_uart.h>

#define EXPORT __attribute__((visibility("default")))

#define FACES 6
#define REG_SPL 0x5D
#define REG_SPH 0x5E
#define REG_MCUCR 0x55
#define MCUCR_IVSEL 0x02
#define REG_DDRC 0x27
#define SERIAL_AT 0xF0
#define SERIAL_LEN 9
#define SERVICE_CAP 65536
#define INBOX_CAP 4096
#define OUTBOX_CAP 4096
#define MAX_TILES 64

typedef struct {
    uint64_t cycle;   /* local cycle at which the light arrives */
    uint8_t face;
} arrival_t;

typedef struct {
    uint64_t cycle;   /* local cycle of the flash */
    uint8_t face;
} flash_t;

#define WATCH_MAX 16
#define CHANGES_CAP 4096

typedef struct cs_tile {
    avr_t *avr;
    uint32_t vector_offset;
    uint8_t serial[SERIAL_LEN];
    int64_t rate_ppm;            /* this tile's clock error: local = world * (1e6 + ppm) / 1e6 */
    uint64_t world_offset;       /* world cycle at which this tile powered up */
    int powered;
    int state;                   /* simavr's cpu state after the last step */
    uint8_t anode_level[FACES];
    /* figures */
    uint16_t sp_min;
    uint32_t loop_pc;            /* byte address of loop(), or 0 */
    int in_loop;
    uint32_t loop_ret;           /* where loop() returns to, and the SP it returns with */
    uint16_t loop_sp;
    uint64_t loop_start;
    uint64_t loop_max;           /* cycles */
    uint64_t loops;
    uint32_t stuck_pc;
    /* bytes written once, when the pc first reaches poke_pc (a layout's initial state,
       written as setup() is called: after the C runtime set up the globals) */
    uint32_t poke_pc;
    uint8_t *poke;               /* (address low, address high, value) triples */
    uint32_t poke_count;
    /* the game's first instruction (setup(), or blinklib's mainx), and the local cycle the
       pc first reached it: where a booted tile's world time starts (cs_boot) */
    uint32_t start_pc;
    uint64_t start_cycle;
    int stop_at_start;
    /* a block of RAM (the BIOS's pixel buffer, for --compare) read whenever the pc reaches
       watch_pc, or at each slice's end without one: each change, with its local cycle */
    uint16_t watch_addr;
    uint8_t watch_len;
    uint32_t watch_pc;           /* taken when the pc gets here; 0: at each slice's end */
    uint8_t watch_last[WATCH_MAX];
    uint64_t change_at[CHANGES_CAP];   /* local cycles */
    uint8_t change_bytes[CHANGES_CAP][WATCH_MAX];
    uint32_t changes;
    int changes_lost;
    /* IR */
    flash_t outbox[OUTBOX_CAP];
    int outbox_len;
    arrival_t inbox[INBOX_CAP];  /* sorted by cycle */
    int inbox_len;
    int timer_set;
    uint64_t discharges;
    /* service port (USART0 output) */
    uint8_t service[SERVICE_CAP];
    uint32_t service_len;
    /* What the other end of the service port sent (a scenario's `serial`), not yet in the
     * UART's receive FIFO: fed in while the UART says XON (its FIFO has room). */
    uint8_t service_in[SERVICE_CAP];
    uint32_t service_in_pos, service_in_len;
    int service_in_full;
} cs_tile;

/* ---------------------------------------------------------------- simavr callbacks */

static void no_sleep(avr_t *avr, avr_cycle_count_t how_long) {
    (void)avr;
    (void)how_long;  /* simulated time only: never wait in real time */
}

static void on_vector(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    cs_tile *t = param;
    if (t->avr->data[REG_MCUCR] & MCUCR_IVSEL)
        t->avr->pc += t->vector_offset;
}

static void on_anode(struct avr_irq_t *irq, uint32_t value, void *param) {
    cs_tile *t = param;
    int face = irq->irq;  /* IOPORT_IRQ_PIN0 + n */
    uint8_t level = value & 1;
    if (face >= FACES)
        return;
    if (level && !t->anode_level[face] && t->outbox_len < OUTBOX_CAP) {
        t->outbox[t->outbox_len].cycle = t->avr->cycle;
        t->outbox[t->outbox_len].face = (uint8_t)face;
        t->outbox_len++;
    }
    t->anode_level[face] = level;
}

static void on_service_byte(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    cs_tile *t = param;
    if (t->service_len < SERVICE_CAP)
        t->service[t->service_len++] = (uint8_t)value;
}

/* Bytes into the UART while its FIFO has room: it raises XOFF (synchronously) when the FIFO
 * fills, XON when the program has read from it again. */
static void feed_service_input(cs_tile *t) {
    avr_irq_t *input = avr_io_getirq(t->avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    while (!t->service_in_full && t->service_in_pos < t->service_in_len)
        avr_raise_irq(input, t->service_in[t->service_in_pos++]);
}

static void on_service_xon(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    cs_tile *t = param;
    t->service_in_full = 0;
    feed_service_input(t);
}

static void on_service_xoff(struct avr_irq_t *irq, uint32_t value, void *param) {
    (void)irq;
    (void)value;
    ((cs_tile *)param)->service_in_full = 1;
}

static void discharge(cs_tile *t, int face) {
    avr_t *avr = t->avr;
    if (avr->data[REG_DDRC] & (1 << face))
        return;  /* an output is driven: light cannot pull it */
    avr_irq_t *pin = avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('C'), face);
    avr_raise_irq(pin, 0);
    t->discharges++;
}

static avr_cycle_count_t on_arrival(avr_t *avr, avr_cycle_count_t when, void *param) {
    cs_tile *t = param;
    (void)when;
    int done = 0;
    while (done < t->inbox_len && t->inbox[done].cycle <= avr->cycle) {
        discharge(t, t->inbox[done].face);
        done++;
    }
    memmove(t->inbox, t->inbox + done, (size_t)(t->inbox_len - done) * sizeof(arrival_t));
    t->inbox_len -= done;
    if (t->inbox_len == 0) {
        t->timer_set = 0;
        return 0;
    }
    return t->inbox[0].cycle;  /* absolute: simavr reschedules us then */
}

static avr_cycle_count_t on_slice_end(avr_t *avr, avr_cycle_count_t when, void *param) {
    (void)avr;
    (void)when;
    (void)param;
    return 0;  /* only bounds a sleeping core's jump to the slice's end */
}

/* ---------------------------------------------------------------- one tile */

/* The button contact closes PD7 to ground. It is an external level: simavr re-drives an
   input pin with its pull-up whenever the port is written, unless the pin has an external
   value (AVR_IOCTL_IOPORT_SET_EXTERNAL), so the level is set both ways. */
static void set_button(cs_tile *t, int down) {
    avr_ioport_external_t level = {.name = 'D', .mask = 0x80, .value = down ? 0 : 0x80};
    avr_ioctl(t->avr, AVR_IOCTL_IOPORT_SET_EXTERNAL('D'), &level);
    avr_raise_irq(avr_io_getirq(t->avr, AVR_IOCTL_IOPORT_GETIRQ('D'), 7), down ? 0 : 1);
}

/* simavr's external-interrupt module polls a level-triggered INTn pin with a cycle timer
   that asks for the port's state through avr_ioctl, which walks the list of IO modules
   until one answers: the three timers and the UART come before the ports. Moving the port
   modules to the front (port D, which has INT0/INT1, first) answers at the first module;
   nothing else changes, since every ioctl is answered by one module only. Profiled on a
   P&L cluster: avr_ioctl was 15 % of the time. */
static void ports_first(avr_t *avr) {
    avr_io_t *ports[8];
    int n = 0;
    avr_io_t **link = &avr->io_port;
    while (*link) {
        avr_io_t *io = *link;
        if (io->kind && strcmp(io->kind, "port") == 0 && n < 8) {
            *link = io->next;  /* unlink, keep looking */
            ports[n++] = io;
        } else {
            link = &io->next;
        }
    }
    /* They were registered B, C, D: put them back D, C, B at the head. */
    for (int i = 0; i < n; i++) {
        ports[i]->next = avr->io_port;
        avr->io_port = ports[i];
    }
}

static void after_reset(cs_tile *t) {
    avr_t *avr = t->avr;
    memcpy(avr->data + SERIAL_AT, t->serial, SERIAL_LEN);
    t->sp_min = 0xFFFF;
    t->in_loop = 0;
    memset(t->anode_level, 0, sizeof t->anode_level);
}

EXPORT cs_tile *cs_tile_new(const uint8_t *flash, uint32_t flash_len, uint32_t reset_pc,
                            uint32_t vector_offset, const uint8_t *serial, uint32_t frequency) {
    avr_t *avr = avr_make_mcu_by_name("atmega168");
    if (!avr)
        return NULL;
    cs_tile *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->avr = avr;
    avr_init(avr);
    ports_first(avr);
    avr->log = 0;
    avr->frequency = frequency;
    avr->sleep = no_sleep;
    if (flash_len > avr->flashend + 1)
        flash_len = avr->flashend + 1;
    memcpy(avr->flash, flash, flash_len);
    avr->codeend = avr->flashend;
    avr->reset_pc = reset_pc;
    avr->pc = reset_pc;
    t->vector_offset = vector_offset;
    memcpy(t->serial, serial, SERIAL_LEN);
    avr_irq_register_notify(avr->interrupts.irq + AVR_INT_IRQ_RUNNING, on_vector, t);
    for (int f = 0; f < FACES; f++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ('B'), f), on_anode, t);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_service_byte, t);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_service_xon, t);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_service_xoff, t);
    set_button(t, 0);  /* the contact is open until someone presses it */
    after_reset(t);
    t->state = avr->state;
    return t;
}

EXPORT void cs_tile_free(cs_tile *t) {
    if (!t)
        return;
    avr_terminate(t->avr);
    free(t->avr);
    free(t->poke);
    free(t);
}

EXPORT void cs_set_loop_pc(cs_tile *t, uint32_t pc) { t->loop_pc = pc; }
EXPORT void cs_set_poke(cs_tile *t, uint32_t pc, const uint8_t *triples, uint32_t count) {
    free(t->poke);
    t->poke = count ? malloc(3u * count) : NULL;
    if (count && !t->poke)
        count = 0;
    if (count)
        memcpy(t->poke, triples, 3u * count);
    t->poke_pc = pc;
    t->poke_count = count;
}

EXPORT void cs_set_clock(cs_tile *t, int64_t ppm) { t->rate_ppm = ppm; }

EXPORT void cs_set_button(cs_tile *t, int down) { set_button(t, down); }

EXPORT void cs_discharge(cs_tile *t, int face) { discharge(t, face); }

/* Log the watched block if it changed (local cycle now). Taken as blinklib calls the BIOS's
   display entry after loop(): what the pass committed (a pass writes the pixel buffer face
   by face, so between two passes it may be half written). */
static void watch_check(cs_tile *t) {
    if (!t->watch_len || !memcmp(t->avr->data + t->watch_addr, t->watch_last, t->watch_len))
        return;
    memcpy(t->watch_last, t->avr->data + t->watch_addr, t->watch_len);
    if (t->changes < CHANGES_CAP) {
        t->change_at[t->changes] = t->avr->cycle;
        memcpy(t->change_bytes[t->changes], t->watch_last, t->watch_len);
        t->changes++;
    } else {
        t->changes_lost = 1;
    }
}

/* Run until the tile's local cycle count reaches `target` (or it stops). */
static void run_to(cs_tile *t, uint64_t target) {
    avr_t *avr = t->avr;
    if (avr->cycle >= target)
        return;
    avr_cycle_timer_register(avr, target - avr->cycle, on_slice_end, t);
    while (avr->cycle < target) {
        int state = avr_run(avr);
        if (state == cpu_Done || state == cpu_Crashed) {
            t->state = state;
            t->stuck_pc = avr->pc;
            return;
        }
        uint16_t sp = (uint16_t)(avr->data[REG_SPL] | (avr->data[REG_SPH] << 8));
        if (sp < t->sp_min)
            t->sp_min = sp;
        uint32_t pc = avr->pc;
        if (pc == t->poke_pc && t->poke_count) {
            for (uint32_t k = 0; k < t->poke_count; k++) {
                uint16_t at = (uint16_t)(t->poke[3 * k] | (t->poke[3 * k + 1] << 8));
                if (at <= avr->ramend)
                    avr->data[at] = t->poke[3 * k + 2];
            }
            t->poke_count = 0;
        }
        if (pc == t->watch_pc && t->watch_pc)
            watch_check(t);
        if (pc == t->start_pc && t->start_pc && !t->start_cycle) {
            t->start_cycle = avr->cycle;
            if (t->stop_at_start)
                break;   /* (the poke above is done: it is the same pc) */
        }
        if (pc == t->loop_pc && !t->in_loop) {
            /* Just called: the return address (a word address, high byte first) is on top. */
            t->in_loop = 1;
            t->loop_start = avr->cycle;
            t->loop_ret = (uint32_t)((avr->data[sp + 1] << 8) | avr->data[sp + 2]) * 2;
            t->loop_sp = (uint16_t)(sp + 2);
        } else if (t->in_loop && pc == t->loop_ret && sp == t->loop_sp) {
            uint64_t took = avr->cycle - t->loop_start;
            if (took > t->loop_max)
                t->loop_max = took;
            t->loops++;
            t->in_loop = 0;
        }
    }
    t->state = avr->state;
}

EXPORT int cs_run(cs_tile *t, uint64_t target_cycle) {
    run_to(t, target_cycle);
    return t->state;
}

/* Power up alone and run the BIOS's boot until the game's first instruction `start_pc`
   (or `limit` local cycles). Returns the local cycle it was reached at; 0: not reached. */
EXPORT uint64_t cs_boot(cs_tile *t, uint32_t start_pc, uint64_t limit) {
    t->start_pc = start_pc;
    t->stop_at_start = 1;
    run_to(t, limit);
    t->stop_at_start = 0;
    avr_cycle_timer_cancel(t->avr, on_slice_end, t);
    t->outbox_len = 0;           /* (lights of the boot, before the tile is in a cluster) */
    return t->start_cycle;
}

/* Watch `len` bytes at `addr` (at most WATCH_MAX; 0: none), read whenever the pc reaches
   `pc` (0: at each slice's end); starts from their value now. */
EXPORT void cs_set_watch(cs_tile *t, uint16_t addr, uint8_t len, uint32_t pc) {
    t->watch_pc = pc;
    if (len > WATCH_MAX || (uint32_t)addr + len > (uint32_t)t->avr->ramend + 1u)
        len = 0;
    t->watch_addr = addr;
    t->watch_len = len;
    if (len)
        memcpy(t->watch_last, t->avr->data + addr, len);
    t->changes = 0;
    t->changes_lost = 0;
}

static uint64_t world_cycle(const cs_tile *t, uint64_t local);

/* The changes seen since the last call (world cycles, and WATCH_MAX bytes each), at most
   `cap`; -1 if some were lost (more than CHANGES_CAP between two calls). */
EXPORT int64_t cs_take_changes(cs_tile *t, uint64_t *at, uint8_t *bytes, uint32_t cap) {
    if (t->changes_lost)
        return -1;
    uint32_t n = t->changes < cap ? t->changes : cap;
    for (uint32_t k = 0; k < n; k++)
        at[k] = world_cycle(t, t->change_at[k]);
    memcpy(bytes, t->change_bytes, (size_t)n * WATCH_MAX);
    memmove(t->change_at, t->change_at + n, (t->changes - n) * sizeof(uint64_t));
    memmove(t->change_bytes, t->change_bytes + n, (size_t)(t->changes - n) * WATCH_MAX);
    t->changes -= n;
    return n;
}

EXPORT uint64_t cs_cycle(cs_tile *t) { return t->avr->cycle; }
EXPORT uint32_t cs_pc(cs_tile *t) { return t->avr->pc; }
EXPORT int cs_state(cs_tile *t) { return t->avr->state; }
EXPORT uint16_t cs_sp_min(cs_tile *t) { return t->sp_min; }
EXPORT uint64_t cs_loop_max(cs_tile *t) { return t->loop_max; }
EXPORT uint64_t cs_loops(cs_tile *t) { return t->loops; }
EXPORT uint64_t cs_discharges(cs_tile *t) { return t->discharges; }

EXPORT void cs_read(cs_tile *t, uint16_t addr, uint8_t *out, uint16_t len) {
    uint32_t end = (uint32_t)addr + len;
    if (end > (uint32_t)t->avr->ramend + 1u)
        return;
    memcpy(out, t->avr->data + addr, len);
}

EXPORT void cs_write(cs_tile *t, uint16_t addr, const uint8_t *data, uint16_t len) {
    uint32_t end = (uint32_t)addr + len;
    if (end > (uint32_t)t->avr->ramend + 1u)
        return;
    memcpy(t->avr->data + addr, data, len);
}

/* Service-port bytes since the last call, into `out` (at most cap); returns how many. */
EXPORT uint32_t cs_take_service(cs_tile *t, uint8_t *out, uint32_t cap) {
    uint32_t n = t->service_len < cap ? t->service_len : cap;
    memcpy(out, t->service, n);
    memmove(t->service, t->service + n, t->service_len - n);
    t->service_len -= n;
    return n;
}

/* Bytes the other end of the service port sends: queued, and fed to the UART as it takes
 * them. Returns how many were queued (fewer if the queue is full). */
EXPORT uint32_t cs_service_input(cs_tile *t, const uint8_t *data, uint32_t len) {
    if (t->service_in_pos == t->service_in_len)
        t->service_in_pos = t->service_in_len = 0;
    uint32_t room = SERVICE_CAP - t->service_in_len;
    uint32_t n = len < room ? len : room;
    memcpy(t->service_in + t->service_in_len, data, n);
    t->service_in_len += n;
    feed_service_input(t);
    return n;
}

/* ---------------------------------------------------------------- faults (SplitMix64) */

/* The world's fault generator (blinkc/world/splitmix.py specifies it). */
static uint64_t splitmix_next(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* ---------------------------------------------------------------- a cluster */

typedef struct {
    int tile;  /* -1: nobody faces this face */
    int face;
} link_t;

typedef struct {
    int dropped;           /* this burst's flashes go nowhere */
    uint64_t delay;        /* this burst's extra delay, world cycles */
    uint64_t last_world;   /* world cycle of the face's last flash */
    int seen;
    uint64_t count;        /* bursts (packets) this face has sent */
} burst_t;

typedef struct cs_cluster cs_cluster;

typedef struct {
    cs_cluster *cluster;
    int index;
    pthread_t thread;
} worker_t;

struct cs_cluster {
    int n;
    cs_tile *tiles[MAX_TILES];
    link_t links[MAX_TILES][FACES];
    burst_t bursts[MAX_TILES][FACES];
    uint64_t now;              /* world cycles (nominal 8 MHz) */
    uint64_t slice;            /* world cycles per slice */
    uint64_t target;           /* the slice being run ends here */
    /* faults */
    uint64_t rng;
    double drop;
    uint64_t jitter;           /* world cycles; 0: none */
    uint64_t burst_gap;        /* world cycles of darkness that end a burst */
    uint64_t flashes, delivered, dropped;
    /* threads */
    int threads;
    int stop;
    pthread_barrier_t start, done;
    worker_t workers[8];
};

static uint64_t local_cycle(const cs_tile *t, uint64_t world) {
    if (world < t->world_offset)
        return 0;
    unsigned __int128 w = world - t->world_offset;
    return (uint64_t)(w * (unsigned __int128)(1000000 + t->rate_ppm) / 1000000u);
}

static uint64_t world_cycle(const cs_tile *t, uint64_t local) {
    unsigned __int128 l = local;
    return t->world_offset + (uint64_t)(l * 1000000u / (unsigned __int128)(1000000 + t->rate_ppm));
}

static void run_share(cs_cluster *c, int index) {
    for (int i = index; i < c->n; i += c->threads) {
        cs_tile *t = c->tiles[i];
        if (!t->powered)
            continue;
        if (t->inbox_len && !t->timer_set) {
            uint64_t first = t->inbox[0].cycle;
            uint64_t now = t->avr->cycle;
            avr_cycle_timer_register(t->avr, first > now ? first - now : 1, on_arrival, t);
            t->timer_set = 1;
        }
        run_to(t, local_cycle(t, c->target));
        if (!t->watch_pc)
            watch_check(t);    /* (no display entry to take it at: at the slice's end) */
    }
}

static void *worker_main(void *arg) {
    worker_t *w = arg;
    cs_cluster *c = w->cluster;
    for (;;) {
        pthread_barrier_wait(&c->start);
        if (c->stop)
            return NULL;
        run_share(c, w->index);
        pthread_barrier_wait(&c->done);
    }
}

EXPORT cs_cluster *cs_cluster_new(int threads, uint32_t slice_cycles, uint64_t seed_state) {
    cs_cluster *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    if (threads < 1)
        threads = 1;
    if (threads > 8)
        threads = 8;
    c->threads = threads;
    c->slice = slice_cycles ? slice_cycles : 256;
    c->rng = seed_state;
    c->burst_gap = 8000;  /* 1 ms */
    for (int i = 0; i < MAX_TILES; i++)
        for (int f = 0; f < FACES; f++)
            c->links[i][f].tile = -1;
    if (threads > 1) {
        pthread_barrier_init(&c->start, NULL, (unsigned)threads);
        pthread_barrier_init(&c->done, NULL, (unsigned)threads);
        for (int k = 1; k < threads; k++) {
            c->workers[k].cluster = c;
            c->workers[k].index = k;
            pthread_create(&c->workers[k].thread, NULL, worker_main, &c->workers[k]);
        }
    }
    return c;
}

EXPORT void cs_cluster_free(cs_cluster *c) {
    if (!c)
        return;
    if (c->threads > 1) {
        c->stop = 1;
        pthread_barrier_wait(&c->start);
        for (int k = 1; k < c->threads; k++)
            pthread_join(c->workers[k].thread, NULL);
        pthread_barrier_destroy(&c->start);
        pthread_barrier_destroy(&c->done);
    }
    free(c);  /* the tiles are their owner's to free */
}

/* Add a tile that powered up at world cycle `powered_at` (now, or earlier for a tile whose
   boot ran alone: cs_boot). Returns its index, or -1. */
EXPORT int cs_cluster_add(cs_cluster *c, cs_tile *t, uint64_t powered_at) {
    if (c->n >= MAX_TILES)
        return -1;
    t->world_offset = powered_at;
    t->powered = 1;
    c->tiles[c->n] = t;
    return c->n++;
}

EXPORT void cs_cluster_link(cs_cluster *c, int a, int fa, int b, int fb) {
    c->links[a][fa].tile = b;
    c->links[a][fa].face = fb;
}

EXPORT void cs_cluster_unlink_all(cs_cluster *c) {
    for (int i = 0; i < MAX_TILES; i++)
        for (int f = 0; f < FACES; f++)
            c->links[i][f].tile = -1;
}

EXPORT void cs_cluster_faults(cs_cluster *c, double drop, uint64_t jitter_cycles) {
    c->drop = drop;
    c->jitter = jitter_cycles;
}

EXPORT uint64_t cs_cluster_now(cs_cluster *c) { return c->now; }
EXPORT uint64_t cs_cluster_local(cs_cluster *c, int i) { return local_cycle(c->tiles[i], c->now); }
EXPORT uint64_t cs_cluster_flashes(cs_cluster *c) { return c->flashes; }
EXPORT uint64_t cs_cluster_dropped(cs_cluster *c) { return c->dropped; }
/* How many packets (bursts of flashes) tile `a` has sent out of face `fa`, linked or not. */
EXPORT uint64_t cs_cluster_packets(cs_cluster *c, int a, int fa) {
    return c->bursts[a][fa].count;
}

static void insert_arrival(cs_tile *t, uint64_t cycle, int face) {
    if (t->inbox_len >= INBOX_CAP)
        return;
    int i = t->inbox_len;
    while (i > 0 && t->inbox[i - 1].cycle > cycle) {
        t->inbox[i] = t->inbox[i - 1];
        i--;
    }
    t->inbox[i].cycle = cycle;
    t->inbox[i].face = (uint8_t)face;
    t->inbox_len++;
    if (i == 0 && t->timer_set) {
        avr_cycle_timer_cancel(t->avr, on_arrival, t);
        t->timer_set = 0;
    }
}

/* The flashes of the slice just run reach the facing tiles one slice after they left. */
static void deliver(cs_cluster *c) {
    for (int a = 0; a < c->n; a++) {
        cs_tile *t = c->tiles[a];
        for (int k = 0; k < t->outbox_len; k++) {
            int fa = t->outbox[k].face;
            uint64_t at = world_cycle(t, t->outbox[k].cycle);
            burst_t *b = &c->bursts[a][fa];
            c->flashes++;
            if (!b->seen || at - b->last_world > c->burst_gap) {
                /* A new burst (a packet): the fault model decides its fate once. */
                b->dropped = c->drop > 0.0 &&
                             (double)(splitmix_next(&c->rng) >> 11) * (1.0 / 9007199254740992.0) <
                                 c->drop;
                b->delay = c->jitter ? splitmix_next(&c->rng) % (c->jitter + 1) : 0;
                b->seen = 1;
                b->count++;
            }
            b->last_world = at;
            link_t l = c->links[a][fa];
            if (l.tile < 0)
                continue;
            if (b->dropped) {
                c->dropped++;
                continue;
            }
            cs_tile *r = c->tiles[l.tile];
            uint64_t arrive = local_cycle(r, at + c->slice + b->delay);
            insert_arrival(r, arrive, l.face);
            c->delivered++;
        }
        t->outbox_len = 0;
    }
}

/* Run the cluster until world cycle `until`. */
EXPORT void cs_cluster_run(cs_cluster *c, uint64_t until) {
    while (c->now < until) {
        uint64_t next = c->now + c->slice;
        c->target = next < until ? next : until;
        if (c->threads > 1) {
            pthread_barrier_wait(&c->start);
            run_share(c, 0);
            pthread_barrier_wait(&c->done);
        } else {
            run_share(c, 0);
        }
        c->now = c->target;
        deliver(c);
    }
}
