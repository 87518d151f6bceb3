/* SPDX-License-Identifier: MIT */
/*
 * sim_thread.c - threaded mode: a NIC thread runs the scheduler in the
 * background (servers), sleeping when idle and woken by doorbells,
 * deliveries and kicks.
 *
 * Owns: the thread's lifetime.  The thread takes dev->lock per batch of
 * steps and drops it between batches so host calls get in.  While idle it
 * still wakes every 200 us: wait-on-data watches memory the CPU writes
 * without ringing anything, and parked infinite RNR retries try again
 * (their peer may sit in another process).
 *
 * Must not: change what a step does (the same scheduler as deterministic
 * mode; only the interleaving with the host differs).
 */
#include <time.h>

#include "sim/sim_internal.h"

#define SIM_THREAD_BATCH   256
#define SIM_THREAD_IDLE_NS 200000L
#define SIM_THREAD_SPINS   64

static void *nic_thread(void *arg)
{
	struct sim_dev *dev = arg;

	pthread_mutex_lock(&dev->lock);
	while (!dev->stopping) {
		uint64_t n = sim_sched_steps(dev, SIM_THREAD_BATCH);

		if (n == SIM_THREAD_BATCH) {
			pthread_mutex_unlock(&dev->lock);
			sched_yield();
			pthread_mutex_lock(&dev->lock);
			continue;
		}
		if (n == 0) {
			uint64_t w = __atomic_load_n(&dev->wakes, __ATOMIC_ACQUIRE);
			struct timespec ts;

			/* spin a little before sleeping: a host that posts one WQE
			 * and polls for it should not pay a thread wake-up */
			pthread_mutex_unlock(&dev->lock);
			for (int i = 0; i < SIM_THREAD_SPINS &&
			                __atomic_load_n(&dev->wakes, __ATOMIC_ACQUIRE) == w;
			     i++)
				sched_yield();
			pthread_mutex_lock(&dev->lock);
			if (__atomic_load_n(&dev->wakes, __ATOMIC_ACQUIRE) != w)
				continue;

			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += SIM_THREAD_IDLE_NS;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&dev->wake, &dev->lock, &ts);
			sim_unpark_all(dev);
		}
	}
	pthread_mutex_unlock(&dev->lock);
	return NULL;
}

int sim_thread_start(struct sim_dev *dev)
{
	int rc;

	pthread_mutex_lock(&dev->lock);
	if (dev->threaded) {
		pthread_mutex_unlock(&dev->lock);
		return SIM_E_BUSY;
	}
	dev->stopping = false;
	rc = pthread_create(&dev->thread, NULL, nic_thread, dev);
	if (rc == 0) {
		dev->threaded = true;
		/* Named so that an embedding application's CPU can be told from
		 * the NIC's (ps -L, /proc/PID/task/TID/comm). */
		pthread_setname_np(dev->thread, "prism-nic");
	}
	pthread_mutex_unlock(&dev->lock);
	return -rc;
}

int sim_thread_stop(struct sim_dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	if (!dev->threaded) {
		pthread_mutex_unlock(&dev->lock);
		return 0;
	}
	dev->stopping = true;
	pthread_cond_broadcast(&dev->wake);
	pthread_mutex_unlock(&dev->lock);
	pthread_join(dev->thread, NULL);
	pthread_mutex_lock(&dev->lock);
	dev->threaded = false;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

void sim_thread_wake(struct sim_dev *dev)
{
	__atomic_add_fetch(&dev->wakes, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&dev->threaded, __ATOMIC_RELAXED))
		pthread_cond_signal(&dev->wake);
}

int sim_dev_start(struct sim_dev *dev)
{
	return dev ? sim_thread_start(dev) : -EINVAL;
}

int sim_dev_stop(struct sim_dev *dev)
{
	return dev ? sim_thread_stop(dev) : -EINVAL;
}

int sim_dev_thread_cpu_clock(struct sim_dev *dev, clockid_t *clock)
{
	int rc = -EINVAL;

	if (!dev || !clock)
		return -EINVAL;
	pthread_mutex_lock(&dev->lock);
	if (dev->threaded)
		rc = -pthread_getcpuclockid(dev->thread, clock);
	pthread_mutex_unlock(&dev->lock);
	return rc;
}
